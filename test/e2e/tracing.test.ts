import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { faultDatabase } from '../support/fault-store';
import { findBinary, ServerProcess } from '../support/server-process';
import { freePort, ServiceProcess } from '../support/service-process';
import { until } from '../support/until';
import { Mailpit } from '../../services/mail/test/support/mailpit';

/**
 * Issue 13, traces and logs: gateway, auth, data and mail run as processes of this test with
 * tracing on, exporting OTLP/HTTP (JSON) to a collector the test runs in memory. One client
 * request must be one trace from the gateway's server span to the store; a signup must be one
 * trace from the request through the outbox, NATS and the mail consumer to the SMTP send; and
 * the log lines written meanwhile carry the request id, project and trace ids. The test brings
 * its own NATS, Mailpit, databases and secrets: only the PostgreSQL (or MongoDB) server and Redis
 * are shared.
 */

interface Span {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

const KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

function attributes(list: OtlpAttribute[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of list)
    out[a.key] = a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue;
  return out;
}

/** An OTLP/HTTP JSON receiver that keeps every span it is sent. */
async function startCollector(): Promise<{ port: number; spans: Span[]; close: () => Promise<void> }> {
  const spans: Span[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const payload = JSON.parse(body.toString()) as OtlpExport;
        for (const rs of payload.resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    port,
    spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A service's JSON log lines (ServiceProcess writes them to .stack/logs/test-<name>-<port>.log). */
function logLines(p: ServiceProcess): Array<Record<string, unknown>> {
  const file = join(__dirname, '..', '..', '.stack', 'logs', `test-${p.service}-${p.port}.log`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const stops: Array<() => Promise<unknown>> = [];
let collector: Awaited<ReturnType<typeof startCollector>>;
let gateway: ServiceProcess;
let auth: ServiceProcess;
let data: ServiceProcess;
let mail: ServiceProcess;
let mailpit: Mailpit;
const adminToken = randomBytes(32).toString('base64url');
const clientIp = `10.213.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

async function call(
  method: string,
  path: string,
  opts: { key?: string; admin?: boolean; body?: unknown; requestId?: string } = {},
): Promise<{ status: number; body: any; requestId: string | null }> {
  // a client address of this test's own: the rate-limit buckets in the shared Redis are per IP
  const headers: Record<string, string> = { 'x-forwarded-for': clientIp };
  if (opts.key) headers['x-api-key'] = opts.key;
  if (opts.admin) headers.authorization = `Bearer ${adminToken}`;
  if (opts.requestId) headers['x-request-id'] = opts.requestId;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(`${gateway.url}${path}`, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await r.text();
  return {
    status: r.status,
    body: text ? JSON.parse(text) : undefined,
    requestId: r.headers.get('x-request-id'),
  };
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baas-tracing-'));
  stops.push(async () => rmSync(dir, { recursive: true, force: true }));
  collector = await startCollector();
  stops.push(() => collector.close());

  const natsPort = await freePort();
  const nats = new ServerProcess(
    'nats',
    findBinary('nats-server'),
    ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(dir, 'nats')],
    natsPort,
  );
  await nats.start();
  stops.push(() => nats.stop());
  const [smtpPort, mailpitPort] = [await freePort(), await freePort()];
  const mailpitServer = new ServerProcess(
    'mailpit',
    findBinary('mailpit'),
    [
      '--smtp',
      `127.0.0.1:${smtpPort}`,
      '--listen',
      `127.0.0.1:${mailpitPort}`,
      '--smtp-auth-accept-any',
      '--smtp-auth-allow-insecure',
      '--disable-version-check',
    ],
    mailpitPort,
  );
  await mailpitServer.start();
  stops.push(() => mailpitServer.stop());
  mailpit = new Mailpit(`http://127.0.0.1:${mailpitPort}`);

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const oneLine = (pem: string) => pem.trim().replace(/\n/g, '\\n');
  const common = {
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    // this NATS has no users: the credentials are ignored, and the stack's are not needed
    NATS_USER: 'tracing-test',
    NATS_PASSWORD: 'tracing-test',
    LOG_LEVEL: 'debug',
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OUTBOX_INTERVAL_MS: '500',
  };
  // each secret only to the processes that may hold it, as the stack hands them out
  const signing = {
    GATEWAY_ASSERTION_PRIVATE_KEY: oneLine(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
  };
  const verifying = {
    GATEWAY_ASSERTION_PUBLIC_KEY: oneLine(publicKey.export({ type: 'spki', format: 'pem' }) as string),
  };
  const envelope = { MAIL_ENVELOPE_KEY: randomBytes(32).toString('hex') };
  const db = async (name: string) => {
    const d = await faultDatabase(name);
    stops.push(() => d.close());
    return d.url();
  };
  const [authPort, dataPort, mailPort, gatewayPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const url = (port: number) => `http://127.0.0.1:${port}`;
  auth = new ServiceProcess('auth', authPort, {
    ...common,
    ...verifying,
    ...envelope,
    AUTH_SECRET: randomBytes(32).toString('base64url'),
    DATABASE_URL: await db('baas_auth'),
  });
  data = new ServiceProcess('data', dataPort, {
    ...common,
    ...verifying,
    DATABASE_URL: await db('baas_data'),
    AUTH_URL: url(authPort),
  });
  mail = new ServiceProcess('mail', mailPort, {
    ...common,
    ...verifying,
    ...envelope,
    DATABASE_URL: await db('baas_mail'),
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtpPort),
    MAIL_FROM: 'no-reply@baas.local',
  });
  gateway = new ServiceProcess('gateway', gatewayPort, {
    ...common,
    ...signing,
    GATEWAY_PORT: String(gatewayPort),
    GATEWAY_METRICS_PORT: String(await freePort()),
    PLATFORM_ADMIN_TOKEN: adminToken,
    TRUST_PROXY: 'loopback',
    AUTH_URL: url(authPort),
    DATA_URL: url(dataPort),
    STORAGE_URL: url(await freePort()),
    MAIL_URL: url(mailPort),
  });
  for (const p of [auth, data, mail, gateway]) {
    stops.push(() => p.stop());
    await p.start();
  }
}, 120_000);

afterAll(async () => {
  while (stops.length > 0) await stops.pop()!().catch(() => undefined);
});

const inTrace = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

function child(spans: Span[], parent: Span, where: (s: Span) => boolean): Span | undefined {
  return spans.find((s) => s.parentSpanId === parent.spanId && where(s));
}

/** Whether `s` descends from `ancestor` within the spans of one trace. */
function descends(spans: Span[], s: Span, ancestor: Span): boolean {
  const byId = new Map(spans.map((x) => [x.spanId, x]));
  for (let at: Span | undefined = s; at; at = byId.get(at.parentSpanId)) if (at === ancestor) return true;
  return false;
}

describe('tracing: one trace per request, across services, the store and NATS', () => {
  it('joins the gateway, the service and the store in one trace, and its log lines carry the ids', async () => {
    const project = await call('POST', '/api/admin/projects', { admin: true, body: { name: 'tracing' } });
    expect(project.status).toBe(201);
    const p = project.body as { id: string; secretKey: string; publishableKey: string };
    const collection = await call('PUT', `/api/admin/projects/${p.id}/collections/notes`, {
      admin: true,
      body: {},
    });
    expect([200, 201]).toContain(collection.status);
    const requestId = `trace-${randomBytes(6).toString('hex')}`;
    // no traceparent from the client: the gateway's own trace must reach the service
    const created = await call('POST', '/api/data/notes', {
      key: p.secretKey,
      body: { text: 'traced' },
      requestId,
    });
    expect([created.status, created.body]).toEqual([201, expect.anything()]);

    let gatewayServer: Span | undefined;
    let dataServer: Span | undefined;
    let store: Span | undefined;
    await until(
      () => {
        gatewayServer = collector.spans.find(
          (s) => s.service === 'gateway' && s.kind === KIND.server && s.name === 'POST /api/data',
        );
        if (!gatewayServer) return false;
        const trace = inTrace(gatewayServer.traceId);
        dataServer = trace.find((s) => s.service === 'data' && s.kind === KIND.server);
        store = trace.find(
          (s) =>
            s.service === 'data' &&
            s.kind === KIND.client &&
            (s.attributes['db.system.name'] ?? s.attributes['db.system']) !== undefined,
        );
        return dataServer !== undefined && store !== undefined;
      },
      20_000,
      'the gateway, data and store spans of the request',
    );
    const trace = inTrace(gatewayServer!.traceId);
    // gateway server span → its upstream client span (undici) → data's server span → the store
    // (the other client span under it is the key lookup at auth)
    const upstream = child(
      trace,
      gatewayServer!,
      (s) =>
        s.kind === KIND.client && String(s.attributes['url.full']).startsWith(`${data.url}/api/data/notes`),
    );
    expect(upstream).toBeDefined();
    expect(dataServer!.parentSpanId).toBe(upstream!.spanId);
    // named by route template, with the current attribute names
    expect(dataServer!.name).toMatch(/^POST \/api\/data\/:[A-Za-z]+$/);
    expect(dataServer!.attributes['http.route']).toBe(dataServer!.name.slice('POST '.length));
    expect(dataServer!.attributes['http.request.method']).toBe('POST');
    expect(dataServer!.attributes['http.response.status_code']).toBe(201);
    expect(gatewayServer!.attributes['http.route']).toBe('/api/data');
    expect(descends(trace, store!, dataServer!)).toBe(true);
    expect(JSON.stringify(trace)).not.toContain('traced'); // no document values in spans

    // Log lines written while serving it: request id, project and the trace.
    await until(
      () => logLines(data).some((l) => l.requestId === requestId),
      5_000,
      "data's log line of the request",
    );
    const dataLine = logLines(data).find((l) => l.requestId === requestId && l.msg === 'request completed');
    expect(dataLine).toMatchObject({
      requestId,
      projectId: p.id,
      trace_id: gatewayServer!.traceId,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(trace.map((s) => s.spanId)).toContain(dataLine!.span_id);
    const gatewayLine = logLines(gateway).find(
      (l) => l.requestId === requestId && l.msg === 'request completed',
    );
    expect(gatewayLine).toMatchObject({ projectId: p.id, trace_id: gatewayServer!.traceId });
  }, 60_000);

  it("continues a client's trace, with the gateway's spans between the client and the service", async () => {
    const project = await call('POST', '/api/admin/projects', {
      admin: true,
      body: { name: 'tracing-client' },
    });
    const p = project.body as { secretKey: string };
    const traceId = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const r = await fetch(`${gateway.url}/api/data/notes`, {
      headers: {
        'x-api-key': p.secretKey,
        'x-forwarded-for': clientIp,
        traceparent: `00-${traceId}-${clientSpan}-01`,
      },
    });
    expect(r.status).toBeLessThan(500);
    await until(
      () => inTrace(traceId).some((s) => s.service === 'data' && s.kind === KIND.server),
      20_000,
      "data's span in the client's trace",
    );
    const trace = inTrace(traceId);
    const gatewayServer = trace.find((s) => s.service === 'gateway' && s.kind === KIND.server);
    expect(gatewayServer).toMatchObject({ name: 'GET /api/data', parentSpanId: clientSpan });
    const dataServer = trace.find((s) => s.service === 'data' && s.kind === KIND.server)!;
    const parent = trace.find((s) => s.spanId === dataServer.parentSpanId);
    expect(parent).toMatchObject({
      service: 'gateway',
      kind: KIND.client,
      parentSpanId: gatewayServer!.spanId,
    });
  }, 60_000);

  it('follows a signup through the outbox and NATS to the verification mail, in one trace', async () => {
    const project = await call('POST', '/api/admin/projects', {
      admin: true,
      body: { name: 'tracing-mail' },
    });
    expect(project.status).toBe(201);
    const p = project.body as { id: string; publishableKey: string };
    const email = `trace.${randomBytes(4).toString('hex')}@example.test`;
    const requestId = `signup-${randomBytes(6).toString('hex')}`;
    const signup = await call('POST', '/api/userAuth/signup', {
      key: p.publishableKey,
      body: { email, password: 'password-123' },
      requestId,
    });
    expect(signup.status).toBe(201);
    await mailpit.waitFor(email, { timeoutMs: 20_000 });

    const subject = 'baas.events.auth.verification_requested';
    let smtp: Span | undefined;
    await until(
      () => {
        const root = collector.spans.find(
          (s) => s.service === 'gateway' && s.kind === KIND.server && s.name === 'POST /api/userAuth',
        );
        const trace = root ? inTrace(root.traceId) : [];
        smtp = trace.find((s) => s.service === 'mail' && s.name === 'smtp send');
        // the consumer span ends (and is exported) after the send it contains
        return smtp !== undefined && trace.some((s) => s.name === `process ${subject}`);
      },
      20_000,
      'the smtp span in the signup trace',
    );
    const trace = inTrace(smtp!.traceId);
    const authServer = trace.find((s) => s.service === 'auth' && s.name === 'POST /api/userAuth/signup');
    const producer = trace.find(
      (s) => s.service === 'auth' && s.kind === KIND.producer && s.name === `send ${subject}`,
    );
    const consumer = trace.find(
      (s) => s.service === 'mail' && s.kind === KIND.consumer && s.parentSpanId === producer?.spanId,
    );
    expect(authServer?.kind).toBe(KIND.server);
    expect(producer).toMatchObject({
      name: `send ${subject}`,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': 'send',
      },
    });
    // The relay publishes after the request: the producer continues the request's trace, under
    // the auth span the event was written in.
    expect(descends(trace, producer!, authServer!)).toBe(true);
    expect(consumer).toMatchObject({
      name: `process ${subject}`,
      parentSpanId: producer!.spanId,
      attributes: { 'messaging.operation.type': 'process', 'messaging.message.id': expect.any(String) },
    });
    expect(consumer!.attributes['messaging.message.id']).toBe(producer!.attributes['messaging.message.id']);
    expect(descends(trace, smtp!, consumer!)).toBe(true);
    expect(smtp).toMatchObject({ kind: KIND.client, attributes: { 'network.protocol.name': 'smtp' } });
    // the mail service's own store work for the event is in the trace too
    expect(
      trace.some(
        (s) => s.service === 'mail' && s.kind === KIND.client && descends(trace, s, consumer!) && s !== smtp,
      ),
    ).toBe(true);

    // auth's log line of the request carries its ids (the key lookup the gateway made for it
    // at auth carries the request id too, without a project)
    const authLine = logLines(auth).find(
      (l) =>
        l.requestId === requestId && (l.req as { url?: string } | undefined)?.url === '/api/userAuth/signup',
    );
    expect(authLine).toMatchObject({ projectId: p.id, trace_id: smtp!.traceId });
    expect(trace.filter((s) => s.service === 'auth').map((s) => s.spanId)).toContain(authLine!.span_id);
  }, 60_000);
});
