// The load client, the same for every system: autocannon, 20 connections, keep-alive, no
// pipelining, a warm-up run that is not counted, then a measured run bounded in time and in
// requests. Every non-2xx answer and every connection error is counted and reported.
import autocannon from 'autocannon';
import { withClientAddress } from './population.mjs';

export const LOAD = {
  connections: 20,
  pipelining: 1,
  /** request timeout (s): a slower answer is an error, not a long wait */
  timeout: 10,
};

/**
 * A scenario: one base URL, default headers and a request builder. `next(i)` returns
 * `{ path, method?, headers?, body? }` for the i-th request of a connection (rotating ids, tags,
 * cursors, users), so every connection walks different documents. `body` is sent as JSON unless
 * it is a Buffer (sent as is, with `headers['content-type']`). Optional per scenario:
 * `maxRequests` (a cap below the run's, e.g. for 1 MB uploads), `connections` and
 * `minWarmupSeconds` (a longer warm-up than the run's, never one where the run has none).
 */
function requestsFor(scenario) {
  return [
    {
      setupRequest(req, context) {
        context.i = (context.i ?? Math.floor(Math.random() * 1e6)) + 1;
        const r = scenario.next(context.i);
        req.path = r.path;
        req.method = r.method ?? 'GET';
        const headers = withClientAddress({ ...scenario.headers, ...r.headers });
        if (r.body === undefined) {
          delete req.body;
        } else if (Buffer.isBuffer(r.body)) {
          req.body = r.body;
        } else {
          req.body = JSON.stringify(r.body);
          headers['content-type'] = 'application/json';
        }
        req.headers = headers;
        return req;
      },
    },
  ];
}

function run(scenario, seconds, maxRequests) {
  return autocannon({
    url: scenario.baseUrl,
    headers: scenario.headers,
    connections: scenario.connections ?? LOAD.connections,
    pipelining: LOAD.pipelining,
    timeout: LOAD.timeout,
    duration: seconds,
    maxOverallRequests: Math.min(maxRequests, scenario.maxRequests ?? Infinity),
    requests: requestsFor(scenario),
  });
}

function summarize(r) {
  const total = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'];
  const statuses = Object.fromEntries(
    Object.entries(r.statusCodeStats ?? {}).map(([code, v]) => [code, Number(v.count)]),
  );
  return {
    requests: total,
    seconds: r.duration,
    rps: total / r.duration,
    latencyMs: { mean: r.latency.mean, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statuses,
  };
}

/** The run's warm-up, or the scenario's `minWarmupSeconds` if longer; none stays none (the smoke). */
export function warmupFor(scenario, warmupSeconds) {
  return warmupSeconds > 0 ? Math.max(warmupSeconds, scenario.minWarmupSeconds ?? 0) : 0;
}

/**
 * Warm-up (discarded, but its non-2xx are kept for the report; skipped when warmupSeconds is 0),
 * then the measured run, as fast as the system answers (closed loop: latency at a fixed rate is
 * measured open-loop by paced.mjs).
 */
export async function measure(scenario, { warmupSeconds, seconds, maxRequests }) {
  const warmup = warmupFor(scenario, warmupSeconds);
  const warm = warmup > 0 ? summarize(await run(scenario, warmup, maxRequests)) : null;
  const result = summarize(await run(scenario, seconds, maxRequests));
  return { ...result, warmupNon2xx: warm?.non2xx ?? 0, warmupErrors: warm?.errors ?? 0 };
}
