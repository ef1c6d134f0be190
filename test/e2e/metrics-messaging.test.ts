import fs from 'node:fs';
import path from 'node:path';
import { MAIL_API_URL, client, createProject } from '../support/e2e';
import { until } from '../support/until';
import { Mailpit, uniqueAddress } from '../../services/mail/test/support/mailpit';
import { uploadBytes, bytesOf } from './storage-helpers';

/**
 * Issue 13, "nothing measures the messaging": after real traffic through the gateway, every
 * process's metrics say what was published, consumed, forwarded, limited, mailed and uploaded,
 * under one prefix and with bounded labels (docs/metrics.md lists them). The stack is shared, so
 * counters are compared before and after and only their increase is asserted.
 */
const services = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '../../deploy/services.json'), 'utf8'),
) as { services: Array<{ name: string; port: number }> };
const GATEWAY_METRICS = `http://127.0.0.1:${process.env.GATEWAY_METRICS_PORT ?? 9080}/metrics`;
const mailpit = new Mailpit(MAIL_API_URL);

type Scrape = Record<string, string>;

async function scrapeAll(): Promise<Scrape> {
  const out: Scrape = {};
  for (const s of services.services) {
    const url = s.name === 'gateway' ? GATEWAY_METRICS : `http://127.0.0.1:${s.port}/metrics`;
    const r = await fetch(url);
    expect({ url, status: r.status }).toEqual({ url, status: 200 });
    out[s.name] = await r.text();
  }
  return out;
}

/** The sum of a metric's samples whose labels include every pair of `labels`. */
function value(text: string | undefined, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const m of (text ?? '').matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/gm)) {
    if (m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

/** The names in `# TYPE` lines: every metric family the process exposes. */
function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1] ?? '');
}

/** prom-client's collectDefaultMetrics families keep their usual names (docs/metrics.md). */
const RUNTIME = /^(process_|nodejs_)/;

describe('messaging metrics', () => {
  it('count events, deliveries, upstream calls, rate limiting, mails and uploads after traffic through the gateway', async () => {
    const before = await scrapeAll();
    const call = client();
    const p = await createProject();

    // auth: a signup publishes user.created and auth.verification_requested; mail sends the mail
    const email = uniqueAddress('e2e-metrics');
    const signup = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email, password: 'password-123' },
    });
    expect(signup.status).toBe(201);
    await mailpit.waitFor(email, { timeoutMs: 15_000 });

    // data: a document insert publishes document.created
    await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, { admin: true, body: {} });
    const doc = await call('POST', '/api/data/notes', { key: p.secretKey, body: { text: 'x' } });
    expect(doc.status).toBe(201);

    // storage: an upload of a known size
    const size = 4096 + Math.floor(Math.random() * 1000);
    const up = await uploadBytes(call, p.secretKey, bytesOf(size));
    expect(up.status).toBe(201);

    // mail: an API send with direct content
    const to = uniqueAddress('e2e-metrics-send');
    const sent = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to, subject: 'metrics', text: 'hello' },
    });
    expect(sent.status).toBe(200);

    // auth: wrong passwords are failed logins (below the per-account throttle)
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', '/api/userAuth/login', {
        key: p.publishableKey,
        body: { email, password: 'wrong-password' },
      });
      expect(r.status).toBe(401);
    }

    // gateway: the auth limiter (20 per client address by default) refuses the call past it
    const limited = client();
    let last = await limited('GET', '/api/userAuth/me', { key: p.publishableKey });
    const limit = Number(last.headers.get('ratelimit-limit'));
    expect({ limit, raised: limit > 1000 }).toEqual({ limit, raised: false }); // not a bench's stack
    for (let i = 0; i < limit && last.status !== 429; i++)
      last = await limited('GET', '/api/userAuth/me', { key: p.publishableKey });
    expect(last.status).toBe(429);

    // Counters move when the relays and consumers have done their part (asynchronously).
    let after: Scrape = {};
    await until(
      async () => {
        after = await scrapeAll();
        const rose = (svc: string, name: string, labels: Record<string, string>) =>
          value(after[svc], name, labels) > value(before[svc], name, labels);
        return (
          rose('mail', 'baas_events_consumed_total', { consumer: 'mail-auth-emails', outcome: 'ack' }) &&
          rose('data', 'baas_events_published_total', { type: 'document.created' }) &&
          rose('storage', 'baas_events_published_total', { type: 'file.uploaded' })
        );
      },
      20_000,
      'the events to be published and consumed',
      250,
    );
    const grew = (svc: string, name: string, labels: Record<string, string> = {}) =>
      value(after[svc], name, labels) - value(before[svc], name, labels);

    for (const [svc, text] of Object.entries(after)) {
      // one prefix for every metric the platform defines; the runtime's defaults keep theirs
      const foreign = families(text).filter((f) => !f.startsWith('baas_') && !RUNTIME.test(f));
      expect({ svc, foreign }).toEqual({ svc, foreign: [] });
      // build_info = 1, with the release, the Node.js version and the store
      const info = /^baas_build_info\{([^}]*)\} 1$/m.exec(text)?.[1] ?? '';
      expect({ svc, info }).toEqual({
        svc,
        info: expect.stringMatching(/version="[^"]+".*node_version="v\d+.*store="(postgres|mongodb|none)"/),
      });
      // no project id in any label
      expect({ svc, mentionsProject: text.includes(p.id) }).toEqual({ svc, mentionsProject: false });
    }
    for (const svc of ['gateway', 'janitor']) expect(after[svc]).toContain('store="none"');
    for (const svc of ['auth', 'data', 'storage', 'mail'])
      expect({ svc, store: /store="(postgres|mongodb)"/.test(after[svc] ?? '') }).toEqual({
        svc,
        store: true,
      });

    // events: published by auth and data, consumed by mail
    expect(grew('auth', 'baas_events_published_total', { type: 'user.created' })).toBeGreaterThanOrEqual(1);
    expect(
      grew('auth', 'baas_events_published_total', { type: 'auth.verification_requested' }),
    ).toBeGreaterThanOrEqual(1);
    expect(grew('data', 'baas_events_published_total', { type: 'document.created' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(
      grew('mail', 'baas_events_consumed_total', { consumer: 'mail-auth-emails', outcome: 'ack' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      grew('mail', 'baas_event_handler_duration_seconds_count', { consumer: 'mail-auth-emails' }),
    ).toBeGreaterThanOrEqual(1);
    // consumer lag and dead letters are read from JetStream for every durable consumer
    for (const [svc, consumer] of [
      ['mail', 'mail-auth-emails'],
      ['mail', 'mail-project-deleted'],
      ['data', 'data-project-deleted'],
      ['auth', 'auth-audit-log'],
    ] as const) {
      for (const gauge of [
        'baas_consumer_pending_messages',
        'baas_consumer_ack_pending_messages',
        'baas_dead_letter_messages',
      ])
        expect({
          svc,
          gauge,
          present: new RegExp(`^${gauge}\\{[^}]*consumer="${consumer}"`, 'm').test(after[svc] ?? ''),
        }).toEqual({
          svc,
          gauge,
          present: true,
        });
    }
    // every outbox reports its backlog
    for (const svc of ['auth', 'data', 'storage', 'mail'])
      expect({ svc, backlog: /^baas_outbox_backlog\{/m.test(after[svc] ?? '') }).toEqual({
        svc,
        backlog: true,
      });

    // gateway: an upstream latency series per target service, and the auth limiter's refusal
    for (const target of ['auth', 'data', 'storage', 'mail'])
      expect({
        target,
        answered: grew('gateway', 'baas_upstream_request_duration_seconds_count', { target }) >= 1,
      }).toEqual({ target, answered: true });
    expect(grew('gateway', 'baas_rate_limit_rejections_total', { limiter: 'auth' })).toBeGreaterThanOrEqual(
      1,
    );

    // auth: logins by outcome, argon2 time
    expect(grew('auth', 'baas_auth_logins_total', { outcome: 'failure' })).toBeGreaterThanOrEqual(3);
    expect(grew('auth', 'baas_argon2_duration_seconds_count', { operation: 'hash' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(after.auth).toMatch(/^baas_argon2_queue_depth\{[^}]*\} \d+$/m);

    // mail: the system mail and the API send, both sent
    expect(
      grew('mail', 'baas_mail_messages_total', { kind: 'system', outcome: 'sent' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      grew('mail', 'baas_mail_messages_total', { kind: 'direct', outcome: 'sent' }),
    ).toBeGreaterThanOrEqual(1);

    // storage: the upload and at least its bytes
    expect(grew('storage', 'baas_storage_uploads_total', { outcome: 'stored' })).toBeGreaterThanOrEqual(1);
    expect(grew('storage', 'baas_storage_upload_bytes_total')).toBeGreaterThanOrEqual(size);
  });
});
