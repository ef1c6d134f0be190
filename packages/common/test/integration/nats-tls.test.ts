import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, createLogger, loadConfig, natsClientOptions, natsEnvShape } from '../../src';
import { findBinary, ServerProcess } from '../../../../test/support/server-process';
import { freePort } from '../../../../test/support/service-process';

/**
 * Issue 12, item 12: the services take NATS TLS settings. A nats-server of the test's own, with
 * mutual TLS on its client port (certificates made here by openssl), and the settings a service
 * reads (NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE) through the same code path.
 */
const logger = createLogger('nats-tls-test', 'silent');
const settings = z.object(natsEnvShape);
let dir: string;
let server: ServerProcess;
let url: string;

function openssl(args: string[], cwd = dir): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.error) throw new Error('openssl not found: install it (Debian package openssl) to run this test');
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
}

/** A key and a certificate signed by the test's CA (`extra` is the extension file's text). */
function issue(name: string, subject: string, extra: string): void {
  writeFileSync(join(dir, `${name}.ext`), extra);
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-out',
    `${name}.crt`,
    '-extfile',
    `${name}.ext`,
  ]);
}

const file = (name: string) => join(dir, name);

/** A self-signed CA (ca.key, ca.crt) in `where`. */
function certificateAuthority(where: string, subject: string): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '1',
      '-subj',
      subject,
    ],
    where,
  );
}

function connectWith(env: Record<string, string>): Promise<NatsConnection> {
  const config = loadConfig(settings, { NATS_URL: url, ...env });
  return connectNats(url, 'tls-test', logger, natsClientOptions(config, 'data'));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'baas-nats-tls-'));
  certificateAuthority(dir, '/CN=baas test CA');
  issue(
    'server',
    '/CN=localhost',
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  issue('client', '/CN=data', 'extendedKeyUsage=clientAuth\n');
  const port = await freePort();
  writeFileSync(
    file('nats.conf'),
    `listen: "127.0.0.1:${port}"
tls {
  cert_file: "${file('server.crt')}"
  key_file: "${file('server.key')}"
  ca_file: "${file('ca.crt')}"
  verify: true
  timeout: 2
}
`,
  );
  server = new ServerProcess('nats-server (TLS)', findBinary('nats-server'), ['-c', file('nats.conf')], port);
  await server.start();
  url = `tls://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('NATS over TLS', () => {
  it('connects with the CA and a client certificate from the settings, and carries messages', async () => {
    const nc = await connectWith({
      NATS_TLS_CA_FILE: file('ca.crt'),
      NATS_TLS_CERT_FILE: file('client.crt'),
      NATS_TLS_KEY_FILE: file('client.key'),
    });
    try {
      const sub = nc.subscribe('tls.test', { max: 1 });
      nc.publish('tls.test', 'over tls');
      for await (const m of sub) expect(m.string()).toBe('over tls');
      expect(nc.info?.tls_required).toBe(true);
    } finally {
      await nc.close();
    }
  });

  it('is refused without a client certificate when the server verifies clients', async () => {
    await expect(connectWith({ NATS_TLS_CA_FILE: file('ca.crt') })).rejects.toThrow();
  });

  it('refuses a server whose certificate the configured CA did not sign', async () => {
    const other = mkdtempSync(join(tmpdir(), 'baas-nats-other-ca-'));
    try {
      certificateAuthority(other, '/CN=another CA');
      await expect(
        connectWith({
          NATS_TLS_CA_FILE: join(other, 'ca.crt'),
          NATS_TLS_CERT_FILE: file('client.crt'),
          NATS_TLS_KEY_FILE: file('client.key'),
        }),
      ).rejects.toThrow();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
