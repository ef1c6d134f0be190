import fs from 'node:fs';
import path from 'node:path';
import client from 'prom-client';
import type { NextFunction, Request, Response } from 'express';
import { registerEventLoopLag, UNUSED_DEFAULT_PRECISION_MS } from './event-loop-lag';

/** How often the event-loop delay is sampled (see createMetrics). */
const EVENT_LOOP_SAMPLE_MS = 1000;

/**
 * Every metric the platform defines starts with this (Prometheus naming: one prefix for the
 * application). The runtime's default metrics (`process_*`, `nodejs_*`) keep their usual names,
 * which the common Node.js dashboards and alerts expect.
 */
export const METRIC_PREFIX = 'baas_';

/** One registry per process, default metrics plus a request histogram with bounded labels. */
export interface Metrics {
  registry: client.Registry;
  httpDuration: client.Histogram<'method' | 'route' | 'status_code'>;
  /** Requests received and not yet answered (or abandoned) by this process. */
  inFlight: client.Gauge;
}

export interface MetricsOptions {
  /** The store the process's DATABASE_URL names; `none` for the gateway and the janitor. */
  store?: 'postgres' | 'mongodb' | 'none';
  /** The release; the root package.json's version when not given. */
  version?: string;
}

/** The release this process runs: the monorepo's version (every package is versioned with it). */
export function platformVersion(): string {
  // dist/ or src/ of packages/common: the root package.json is three levels up (also in the image).
  for (const file of [
    path.resolve(__dirname, '../../../package.json'),
    path.resolve(__dirname, '../package.json'),
  ]) {
    try {
      const v = (JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version;
      if (typeof v === 'string') return v;
    } catch {
      // not there (a trimmed image): try the next
    }
  }
  return 'unknown';
}

export function createMetrics(service: string, opts: MetricsOptions = {}): Metrics {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  // The event-loop delay histogram (nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds)
  // samples with a timer that wakes the process at every sample, busy or idle: prom-client's
  // default of every 10 ms cost about 0.5 % of a core per process at rest, every 100 ms about
  // 0.1 % (six services: 0.6 % of issue 14's 2 % idle target for the whole system), every second
  // 0.03 %. Under load, where lag matters, a sample a second still tracks it; a single stall
  // shorter than a second is recorded when a sample falls in it (with the chance of its length in
  // seconds), longer ones always. registerEventLoopLag reports how late the samples were, not the
  // interval between them (prom-client's gauges would read ~1 s at this interval).
  client.collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: UNUSED_DEFAULT_PRECISION_MS,
  });
  registerEventLoopLag(registry, EVENT_LOOP_SAMPLE_MS);
  const httpDuration = new client.Histogram({
    name: `${METRIC_PREFIX}http_server_request_duration_seconds`,
    help: 'HTTP request duration by route template',
    labelNames: ['method', 'route', 'status_code'] as const,
    // up to the services' 120 s request timeout: an upload on a slow link takes minutes
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const inFlight = new client.Gauge({
    name: `${METRIC_PREFIX}http_server_requests_in_flight`,
    help: 'HTTP requests received and not yet answered',
    registers: [registry],
  });
  new client.Gauge({
    name: `${METRIC_PREFIX}build_info`,
    help: 'Always 1: the release, Node.js version and store this process runs with',
    labelNames: ['version', 'node_version', 'store'] as const,
    registers: [registry],
  }).set(
    {
      version: opts.version ?? platformVersion(),
      node_version: process.version,
      store: opts.store ?? 'none',
    },
    1,
  );
  return { registry, httpDuration, inFlight };
}

/** A concrete path segment that is an id (24-hex, UUID, a long token or a number) becomes `:id`. */
function templateOf(path: string): string {
  return path
    .split('/')
    .map((s) => (/^[0-9a-f]{24}$|^[0-9a-f-]{36}$|^\d+$|^[A-Za-z0-9_-]{32,}$/i.test(s) ? ':id' : s))
    .join('/');
}

/**
 * Route label is the matched template (never the raw path or an id) so label cardinality stays
 * bounded: where the router is mounted, ids made `:id` (`req.baseUrl` is the concrete path: a
 * router mounted at `/api/admin/projects/:projectId/mail` has the project's id there), and the
 * route's own pattern.
 */
export function routeLabel(req: Request, base = req.baseUrl): string {
  const routePath = (req.route as { path?: string } | undefined)?.path;
  if (typeof routePath !== 'string') return 'unmatched';
  return `${templateOf(base)}${routePath}`;
}

export function httpMetricsMiddleware(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = metrics.httpDuration.startTimer();
    metrics.inFlight.inc();
    res.once('close', () => metrics.inFlight.dec());
    // The router sets req.route when a route matches, while req.baseUrl is still its mount
    // path; by the time an error has reached the app's handler the base is gone, so it is
    // taken at that moment.
    let route: unknown;
    let base = '';
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get: () => route,
      set: (v: unknown) => {
        route = v;
        base = req.baseUrl;
      },
    });
    res.on('finish', () => {
      end({ method: req.method, route: routeLabel(req, base), status_code: String(res.statusCode) });
    });
    next();
  };
}
