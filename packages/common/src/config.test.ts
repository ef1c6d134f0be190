import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, env, loadConfig, redactConfig } from './config';

const schema = z.object({
  PORT: env.port(8080),
  SECRET: env.secret(8),
  FLAG: env.bool(false),
  URL: env.url('http://x'),
});

describe('loadConfig', () => {
  it('applies defaults and coerces types', () => {
    const c = loadConfig(schema, { SECRET: '12345678', FLAG: 'true' });
    expect(c).toEqual({ PORT: 8080, SECRET: '12345678', FLAG: true, URL: 'http://x' });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reports every bad variable in one error', () => {
    try {
      loadConfig(schema, { PORT: 'abc', SECRET: 'short', URL: 'not a url' });
      throw new Error('should have failed');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const problems = (e as ConfigError).problems.join('\n');
      expect(problems).toMatch(/PORT/);
      expect(problems).toMatch(/SECRET/);
      expect(problems).toMatch(/URL/);
    }
  });

  it('reads NAME_FILE for mounted secrets', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 's'), 'from-a-file\n');
    expect(loadConfig(schema, { SECRET_FILE: join(dir, 's') }).SECRET).toBe('from-a-file');
  });

  it('redacts secrets and URL passwords when printed', () => {
    expect(redactConfig({ PLATFORM_ADMIN_TOKEN: 'x', MONGO_URL: 'mongodb://u:p@h/db', PORT: 1 })).toEqual({
      PLATFORM_ADMIN_TOKEN: '[redacted]',
      MONGO_URL: 'mongodb://u:[redacted]@h/db',
      PORT: 1,
    });
  });
});
