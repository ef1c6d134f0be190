import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, env, loadConfig, redactConfig, storeEnvShape } from './config';

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

  it('redacts passwords inside parsed values: a store variable is an object holding its URL', () => {
    const printed = redactConfig({
      DATABASE_URL: {
        kind: 'postgres',
        url: 'postgres://baas_data:s3cr3t-pw@db:5432/baas_data',
        database: 'baas_data',
      },
      REPLICAS: ['mongodb://u:p1@h1/db', 'mongodb://h2/db?authSource=admin&password=p2'],
      NESTED: { deeper: { apiKey: 'k', note: 'postgres://x:p3@h/db?sslmode=require' } },
      LOG_LEVEL: 'info',
    });
    expect(printed).toEqual({
      DATABASE_URL: {
        kind: 'postgres',
        url: 'postgres://baas_data:[redacted]@db:5432/baas_data',
        database: 'baas_data',
      },
      REPLICAS: ['mongodb://u:[redacted]@h1/db', 'mongodb://h2/db?authSource=admin&password=[redacted]'],
      NESTED: { deeper: { apiKey: '[redacted]', note: 'postgres://x:[redacted]@h/db?sslmode=require' } },
      LOG_LEVEL: 'info',
    });
    expect(JSON.stringify(printed)).not.toMatch(/s3cr3t-pw|p1|p2|p3/);
  });

  it("prints a service's whole parsed config without its database password", () => {
    const dbSchema = z.object({ DATABASE_URL: storeEnvShape.DATABASE_URL, PORT: env.port(8082) });
    const parsed = loadConfig(dbSchema, { DATABASE_URL: 'postgres://svc:pw-in-url@127.0.0.1:5432/svc' });
    const printed = JSON.stringify(redactConfig(parsed));
    expect(printed).toContain('postgres://svc:[redacted]@127.0.0.1:5432/svc');
    expect(printed).not.toContain('pw-in-url');
  });
});
