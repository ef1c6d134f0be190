import fs from 'node:fs';
import path from 'node:path';
import { client, createProject } from '../support/e2e';
import { stackEnv } from '../support/stack-env';
import { uniqueAddress } from '../../services/mail/test/support/mailpit';
import { authClient, signupUser } from './auth-support';
import { bytesOf, uploadBytes } from './storage-helpers';

const services = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '../../deploy/services.json'), 'utf8'),
) as { services: Array<{ name: string; port: number }> };

/**
 * Issue 13: HTTP metric labels are route templates, never raw paths or ids (a label per project
 * id grows without bound and leaks tenants to whoever reads the metrics). Traffic through the
 * gateway that puts ids in every kind of path, then every service's /metrics and the gateway's
 * metrics port are read.
 */
const GATEWAY_METRICS = `http://127.0.0.1:${process.env.GATEWAY_METRICS_PORT ?? 9080}/metrics`;

async function scrape(url: string): Promise<string> {
  const r = await fetch(url);
  expect({ url, status: r.status }).toEqual({ url, status: 200 });
  return r.text();
}

/** The `route` label values of the request-duration histogram. */
function routes(exposition: string): string[] {
  return [
    ...new Set(
      [...exposition.matchAll(/^baas_http_server_request_duration_seconds_count\{([^}]*)\}/gm)].map(
        (m) => /route="([^"]*)"/.exec(m[1] ?? '')?.[1] ?? '',
      ),
    ),
  ];
}

describe('HTTP metric labels', () => {
  it('are route templates on the gateway and every service after traffic with ids in its paths', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, { admin: true, body: {} });
    const doc = await call('POST', '/api/data/notes', { key: p.secretKey, body: { text: 'x' } });
    expect(doc.status).toBe(201);
    await call('GET', `/api/data/notes/${doc.body._id}`, { key: p.secretKey });
    await call('GET', `/api/data/notes/${'0'.repeat(24)}`, { key: p.secretKey });
    await call('GET', '/api/data/notes?limit=1', { key: p.secretKey });
    await call('GET', `/api/admin/projects/${p.id}/mail/templates`, { admin: true });
    await call('GET', `/api/admin/projects/${p.id}/mail/templates/welcome`, { admin: true });
    await call('GET', `/api/admin/projects/${p.id}/collections`, { admin: true });
    await call('GET', `/api/storage/files`, { key: p.secretKey });
    await call('GET', `/api/admin/projects/${p.id}`, { admin: true });

    const scraped: Record<string, string> = { gateway: await scrape(GATEWAY_METRICS) };
    for (const s of services.services.filter((x) => x.name !== 'janitor' && x.name !== 'gateway'))
      scraped[s.name] = await scrape(`http://127.0.0.1:${s.port}/metrics`);

    const ids = [p.id, String(doc.body._id), '0'.repeat(24)];
    for (const [name, text] of Object.entries(scraped)) {
      const labels = routes(text);
      expect({ name, hasSeries: labels.length > 0 }).toEqual({ name, hasSeries: true });
      const leaking = labels.filter(
        (r) => ids.some((id) => r.includes(id)) || /[0-9a-f]{24}|[0-9a-f]{8}-[0-9a-f]{4}-/i.test(r),
      );
      expect({ name, leaking }).toEqual({ name, leaking: [] });
      // nothing else in the exposition names the project either
      expect({ name, mentionsProject: text.includes(p.id) }).toEqual({ name, mentionsProject: false });
      // saturation: requests in flight, back to none once the traffic is answered (scrapes are
      // not counted: /metrics is served before the request metrics, or on another port)
      const inFlight = /^baas_http_server_requests_in_flight\{[^}]*\} (\d+)$/m.exec(text)?.[1];
      expect({ name, inFlight }).toEqual({ name, inFlight: '0' });
    }
    // the gateway's series carry the route table's templates, not one "unmatched" bucket
    expect(routes(scraped.gateway ?? '').some((r) => r.startsWith('/api/'))).toBe(true);
    expect(routes(scraped.mail ?? '')).toEqual(
      expect.arrayContaining([
        '/api/admin/projects/:id/mail/templates/',
        '/api/admin/projects/:id/mail/templates/:key',
      ]),
    );
    expect(routes(scraped.data ?? '')).toEqual(expect.arrayContaining(['/api/data/:collectionName/:id']));
  });

  it('time every dependency call of every process: database, Redis, S3 and SMTP, by outcome', async () => {
    const call = client();
    const p = await createProject();
    await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, { admin: true, body: {} });
    expect((await call('POST', '/api/data/notes', { key: p.secretKey, body: { text: 'x' } })).status).toBe(
      201,
    );
    const auth = authClient();
    const user = await signupUser(auth, p.publishableKey);
    const login = await auth('POST', '/api/userAuth/login', {
      key: p.publishableKey,
      body: { email: user.email, password: user.password },
    });
    expect(login.status).toBe(200);
    expect((await uploadBytes(call, p.secretKey, bytesOf(100))).status).toBe(201);
    const sent = await call('POST', '/api/mail/send', {
      key: p.secretKey,
      body: { to: uniqueAddress(), subject: 'metrics', text: 'x' },
    });
    expect(sent.status).toBe(200);

    const database = stackEnv().STORE === 'mongodb' ? 'mongodb' : 'postgresql';
    const expected: Record<string, string[]> = {
      gateway: ['redis'],
      auth: [database, 'redis'],
      data: [database],
      storage: [database, 's3'],
      mail: [database, 'smtp'],
      janitor: ['redis'],
    };
    for (const [name, dependencies] of Object.entries(expected)) {
      const port = name === 'gateway' ? undefined : services.services.find((s) => s.name === name)?.port;
      const text = await scrape(port === undefined ? GATEWAY_METRICS : `http://127.0.0.1:${port}/metrics`);
      const ok = new Set(
        [...text.matchAll(/^baas_dependency_request_duration_seconds_count\{([^}]*)\} (\d+)/gm)]
          .filter((m) => /outcome="ok"/.test(m[1] ?? '') && Number(m[2]) > 0)
          .map((m) => /dependency="([^"]*)"/.exec(m[1] ?? '')?.[1]),
      );
      expect({ name, timed: dependencies.filter((d) => ok.has(d)) }).toEqual({ name, timed: dependencies });
    }
  });
});
