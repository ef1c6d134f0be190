import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig, natsEnvShape } from '../config';
import { natsClientOptions } from './nats-connection';

const schema = z.object(natsEnvShape);

describe('NATS settings', () => {
  it('without credentials: only the service’s own inbox prefix', () => {
    const config = loadConfig(schema, {});
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(natsClientOptions(config, 'data')).toEqual({ inboxPrefix: '_INBOX.data' });
  });

  it('takes the user and the password, or the password from a mounted file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nats-conf-'));
    writeFileSync(join(dir, 'pw'), 'nsecret123\n');
    const fromFile = loadConfig(schema, { NATS_USER: 'mail', NATS_PASSWORD_FILE: join(dir, 'pw') });
    expect(natsClientOptions(fromFile, 'mail')).toEqual({
      user: 'mail',
      pass: 'nsecret123',
      inboxPrefix: '_INBOX.mail',
    });
    const plain = loadConfig(schema, { NATS_USER: 'auth', NATS_PASSWORD: 'p' });
    expect(natsClientOptions(plain, 'auth')).toMatchObject({ user: 'auth', pass: 'p' });
  });

  it('takes a credentials file and TLS files', () => {
    const config = loadConfig(schema, {
      NATS_CREDS_FILE: '/run/nats/user.creds',
      NATS_TLS_CA_FILE: '/run/nats/ca.pem',
      NATS_TLS_CERT_FILE: '/run/nats/tls.crt',
      NATS_TLS_KEY_FILE: '/run/nats/tls.key',
    });
    expect(natsClientOptions(config, 'storage')).toEqual({
      credsFile: '/run/nats/user.creds',
      tls: { caFile: '/run/nats/ca.pem', certFile: '/run/nats/tls.crt', keyFile: '/run/nats/tls.key' },
      inboxPrefix: '_INBOX.storage',
    });
    expect(natsClientOptions(loadConfig(schema, { NATS_TLS_CA_FILE: '/ca.pem' }), 'x').tls).toEqual({
      caFile: '/ca.pem',
    });
  });

  it('refuses combinations that cannot work, all in one error', () => {
    const bad = loadConfig(schema, {
      NATS_PASSWORD: 'p',
      NATS_TLS_CERT_FILE: '/tls.crt',
    });
    let err: unknown;
    try {
      natsClientOptions(bad, 'data');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      expect.stringMatching(/^NATS_PASSWORD: set NATS_USER/),
      expect.stringMatching(/^NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE/),
    ]);
    expect(() => natsClientOptions(loadConfig(schema, { NATS_USER: 'data' }), 'data')).toThrow(
      /NATS_PASSWORD/,
    );
    expect(() =>
      natsClientOptions(
        loadConfig(schema, { NATS_USER: 'd', NATS_PASSWORD: 'p', NATS_CREDS_FILE: '/c' }),
        'd',
      ),
    ).toThrow(/either a credentials file/);
  });

  it('the password never shows in the logged config', async () => {
    const { redactConfig } = await import('../config');
    const config = loadConfig(schema, { NATS_USER: 'auth', NATS_PASSWORD: 'nsecret' });
    expect(JSON.stringify(redactConfig(config))).not.toContain('nsecret');
  });
});
