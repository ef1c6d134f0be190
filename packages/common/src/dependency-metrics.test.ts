import { performance } from 'node:perf_hooks';
import { createMetrics } from './metrics';
import { dependencyMetrics, instrumentRedis, MAX_OPERATIONS_PER_DEPENDENCY } from './dependency-metrics';
import { postgresOutcome, sqlOperation } from './postgres/metrics';
import { mongoOutcome, writeOutcome } from './mongo/client';
import { dependencyCallCounts } from '../../../test/support/dependency-metrics';

const NAME = 'baas_dependency_request_duration_seconds';

describe('dependency metrics', () => {
  it('records each call by dependency, operation and outcome, with its duration', async () => {
    const metrics = createMetrics('test');
    const dm = dependencyMetrics(metrics);
    dm.record('postgresql', 'SELECT', performance.now() - 20, 'ok');
    dm.record('postgresql', 'SELECT', performance.now(), 'ok');
    dm.record('redis', 'evalsha', performance.now(), 'failed');
    expect(await dependencyCallCounts(metrics)).toEqual({
      'postgresql|SELECT|ok': 2,
      'redis|evalsha|failed': 1,
    });
    const values = (await metrics.registry.getSingleMetric(NAME)?.get())?.values as Array<{
      metricName?: string;
      labels: Record<string, string>;
      value: number;
    }>;
    const sum = values.find((v) => v.metricName === `${NAME}_sum` && v.labels.operation === 'SELECT')?.value;
    expect(sum).toBeGreaterThanOrEqual(0.019);
    expect(sum).toBeLessThan(1);
  });

  it('is one histogram per registry, whoever asks', () => {
    const metrics = createMetrics('test');
    expect(dependencyMetrics(metrics)).toBe(dependencyMetrics(metrics));
    expect(dependencyMetrics(createMetrics('other'))).not.toBe(dependencyMetrics(metrics));
  });

  it(`keeps ${MAX_OPERATIONS_PER_DEPENDENCY} operations per dependency and counts later ones as other`, async () => {
    const metrics = createMetrics('test');
    const dm = dependencyMetrics(metrics);
    for (let i = 0; i <= MAX_OPERATIONS_PER_DEPENDENCY; i++)
      dm.record('mongodb', `op${i}`, performance.now(), 'ok');
    dm.record('mongodb', 'op0', performance.now(), 'ok');
    dm.record('mongodb', 'x'.repeat(65), performance.now(), 'ok');
    const c = await dependencyCallCounts(metrics);
    expect(c['mongodb|op0|ok']).toBe(2);
    expect(c[`mongodb|op${MAX_OPERATIONS_PER_DEPENDENCY - 1}|ok`]).toBe(1);
    expect(c[`mongodb|op${MAX_OPERATIONS_PER_DEPENDENCY}|ok`]).toBeUndefined();
    expect(c['mongodb|other|ok']).toBe(2);
    // another dependency has its own allowance
    dm.record('redis', 'get', performance.now(), 'ok');
    expect((await dependencyCallCounts(metrics))['redis|get|ok']).toBe(1);
  });

  it('times a Redis client’s commands once each, a ReplyError as rejected and anything else as failed', async () => {
    const metrics = createMetrics('test');
    const sent: string[] = [];
    const client = {
      sendCommand(command: { name: string; promise: Promise<unknown> }, stream?: unknown) {
        sent.push(`${command.name}${stream ? '+stream' : ''}`);
        return command.promise;
      },
    };
    instrumentRedis(client, dependencyMetrics(metrics));
    const command = (name: string, result: Promise<unknown>) => ({ name, promise: result });
    const ok = command('get', Promise.resolve('v'));
    await client.sendCommand(ok);
    await client.sendCommand(ok, 'a stream'); // sent again after a reconnect: counted once
    const refused = command(
      'evalsha',
      Promise.reject(Object.assign(new Error('NOSCRIPT'), { name: 'ReplyError' })),
    );
    await expect(client.sendCommand(refused)).rejects.toThrow('NOSCRIPT');
    const broken = command('incr', Promise.reject(new Error('Connection is closed.')));
    await expect(client.sendCommand(broken)).rejects.toThrow('closed');
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['get', 'get+stream', 'evalsha', 'incr']);
    expect(await dependencyCallCounts(metrics)).toEqual({
      'redis|get|ok': 1,
      'redis|evalsha|rejected': 1,
      'redis|incr|failed': 1,
    });
  });
});

describe('operation names and outcomes', () => {
  it.each([
    ['SELECT 1', 'SELECT'],
    ['  select * from t', 'SELECT'],
    ['\n  WITH x AS (SELECT 1) SELECT * FROM x', 'WITH'],
    ['-- the newest first\nSELECT 1', 'SELECT'],
    ['/* hint */ INSERT INTO t VALUES (1)', 'INSERT'],
    ['insert into t values (1)', 'INSERT'],
    ['BEGIN', 'BEGIN'],
    ['frobnicate', 'OTHER'],
    ['', 'OTHER'],
    [undefined, 'OTHER'],
  ])('names the statement %j %s', (text, op) => {
    expect(sqlOperation(text)).toBe(op);
  });

  it.each([
    [undefined, 'ok'],
    [{ code: '23505' }, 'rejected'], // unique violation
    [{ code: '22021' }, 'rejected'], // bad text
    [{ code: '42P01' }, 'rejected'], // undefined table
    [{ code: '57014' }, 'failed'], // canceled by statement_timeout
    [{ code: '40001' }, 'failed'], // serialization failure
    [{ code: '53300' }, 'failed'], // too many connections
    [{ code: '08006' }, 'failed'], // connection failure
    [{ code: 'XX000' }, 'failed'],
    [{ code: 'ECONNREFUSED' }, 'failed'],
    [new Error('Connection terminated unexpectedly'), 'failed'],
  ])('classifies the PostgreSQL error %j as %s', (err, outcome) => {
    expect(postgresOutcome(err)).toBe(outcome);
  });

  it.each([
    [{ name: 'MongoServerError', code: 11000 }, 'rejected'], // duplicate key
    [{ name: 'MongoServerError', code: 2 }, 'rejected'], // bad value
    [{ name: 'MongoServerError', code: 50 }, 'failed'], // maxTimeMS expired
    [{ name: 'MongoServerError', code: 10107 }, 'failed'], // not primary
    [{ name: 'MongoNetworkError' }, 'failed'],
    [{ name: 'MongoServerSelectionError' }, 'failed'],
  ])('classifies the MongoDB failure %j as %s', (failure, outcome) => {
    expect(mongoOutcome(failure)).toBe(outcome);
  });
});

describe('MongoDB replies that succeeded', () => {
  it('are ok, rejected when a write was refused inside them, failed when the write concern was not met', () => {
    expect(writeOutcome({ ok: 1, n: 1 })).toBe('ok');
    expect(writeOutcome({ ok: 1, cursor: { id: 0 } })).toBe('ok');
    expect(writeOutcome(undefined)).toBe('ok');
    expect(writeOutcome({ ok: 1, n: 0, writeErrors: [{ index: 0, code: 11000 }] })).toBe('rejected');
    expect(writeOutcome({ ok: 1, n: 1, writeErrors: [] })).toBe('ok');
    expect(writeOutcome({ ok: 1, n: 1, writeConcernError: { code: 64 } })).toBe('failed');
  });
});
