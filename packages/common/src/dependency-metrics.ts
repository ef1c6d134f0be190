import { performance } from 'node:perf_hooks';
import client from 'prom-client';
import { METRIC_PREFIX, type Metrics } from './metrics';

/** What a process talks to, besides NATS (which has the event metrics of messaging-metrics.ts). */
export type Dependency = 'postgresql' | 'mongodb' | 'redis' | 's3' | 'smtp';

/**
 * How a call ended: `ok`; `rejected` when the dependency answered with a refusal of this call
 * (a unique violation, a duplicate key, a missing object, a recipient refused for good: the
 * dependency is healthy, the request was not); `failed` when there was no usable answer (the
 * connection, a timeout, the dependency unavailable or overloaded). Alerts watch `failed`.
 */
export type DependencyOutcome = 'ok' | 'rejected' | 'failed';

export interface DependencyMetrics {
  /** One call to `dependency`, begun at `startMs` (performance.now()), ended now. */
  record(dependency: Dependency, operation: string, startMs: number, outcome: DependencyOutcome): void;
}

/**
 * Operations per dependency kept as their own label value; later ones are counted as `other`.
 * Operation names come from code (SQL verbs, MongoDB and Redis command names, S3 commands), so
 * this only guards against a mistake turning them unbounded.
 */
export const MAX_OPERATIONS_PER_DEPENDENCY = 64;

const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

const byRegistry = new WeakMap<client.Registry, DependencyMetrics>();

/**
 * The process's dependency metrics (one set per registry, however many adapters ask):
 * `baas_dependency_request_duration_seconds{dependency, operation, outcome}`, a histogram whose
 * `_count` by outcome is also the error counter. Label children are cached: a call costs a set
 * and a map lookup and an observe.
 */
export function dependencyMetrics(metrics: Metrics): DependencyMetrics {
  const known = byRegistry.get(metrics.registry);
  if (known) return known;
  const histogram = new client.Histogram({
    name: `${METRIC_PREFIX}dependency_request_duration_seconds`,
    help: 'Calls to a database, cache, object store or mail server, by dependency, operation and outcome (ok, rejected, failed)',
    labelNames: ['dependency', 'operation', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [metrics.registry],
  });
  type Child = ReturnType<typeof histogram.labels>;
  const children = new Map<string, Child>();
  const operations = new Map<Dependency, Set<string>>();

  function boundedOperation(dependency: Dependency, operation: string): string {
    let seen = operations.get(dependency);
    if (!seen) operations.set(dependency, (seen = new Set()));
    if (seen.has(operation)) return operation;
    if (seen.size >= MAX_OPERATIONS_PER_DEPENDENCY || operation.length > 64) return 'other';
    seen.add(operation);
    return operation;
  }

  const dm: DependencyMetrics = {
    record(dependency, operation, startMs, outcome) {
      // keyed by the bounded name, so the cache is as bounded as the label values
      const op = boundedOperation(dependency, operation);
      const key = `${dependency}\u0000${op}\u0000${outcome}`;
      let child = children.get(key);
      if (!child) {
        child = histogram.labels(dependency, op, outcome);
        children.set(key, child);
      }
      child.observe((performance.now() - startMs) / 1000);
    },
  };
  byRegistry.set(metrics.registry, dm);
  return dm;
}

/** The part of an ioredis command the instrumentation reads. */
interface RedisCommandLike {
  name: string;
  promise: Promise<unknown>;
}

const TIMED = Symbol('baas.dependency-metrics.timed');

/**
 * Times every command an ioredis client sends (pipelined and auto-pipelined ones too: a pipeline
 * hands each of its commands to the client's sendCommand), from the moment it is sent, or queued
 * while disconnected, to its reply. A command sent again after a reconnect is counted once.
 * `ReplyError` (the server refused the command) is `rejected`; anything else `failed`.
 */
export function instrumentRedis<R extends { sendCommand(...args: never[]): unknown }>(
  redis: R,
  dm: DependencyMetrics,
): R {
  const send = redis.sendCommand.bind(redis) as (command: RedisCommandLike, ...rest: unknown[]) => unknown;
  const instrumented = (command: RedisCommandLike, ...rest: unknown[]): unknown => {
    const c = command as RedisCommandLike & { [TIMED]?: true };
    if (!c[TIMED] && c.promise !== undefined) {
      c[TIMED] = true;
      const start = performance.now();
      const operation = c.name;
      c.promise.then(
        () => dm.record('redis', operation, start, 'ok'),
        (e: unknown) =>
          dm.record(
            'redis',
            operation,
            start,
            (e as Error | null)?.name === 'ReplyError' ? 'rejected' : 'failed',
          ),
      );
    }
    return send(command, ...rest);
  };
  (redis as { sendCommand: unknown }).sendCommand = instrumented;
  return redis;
}
