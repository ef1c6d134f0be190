import http from 'node:http';
import type { Express, Request, Response } from 'express';
import type { Logger } from '../logger';
import { createMetrics, httpMetricsMiddleware, type Metrics } from '../metrics';
import { requestIdMiddleware } from './request-id';
import { requestLogMiddleware } from './request-log';
import { runWithContext, saneTraceparent } from '../request-context';
import { errorHandler, notFoundHandler } from './error-handler';
import { drainOnStop } from './drain';
import { parseQuery } from './query';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
}

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  readiness: ReadinessCheck[];
  metrics?: Metrics;
  /** Serve /metrics on this app (false: the caller serves it on a separate port). */
  metricsRoute?: boolean;
}

export interface ServiceApp {
  app: Express;
  metrics: Metrics;
  /** Flip readiness to 503 (on SIGTERM) while in-flight requests drain. */
  setDraining: () => void;
  /** Call after mounting routes: adds the 404 and error handlers. */
  finish: () => Express;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * express, loaded by the first service app: the gateway routes without it and serves /metrics
 * with node:http, so it never loads express (about 3.5 MB of heap; issue 14's idle RSS target).
 */
function loadExpress(): typeof import('express') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('express') as typeof import('express');
}

function metricsHandler(metrics: Metrics) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  };
}

/**
 * A separate listener for /metrics, for processes whose main port faces clients: GET (or HEAD)
 * /metrics answers the registry, anything else 404.
 */
export async function startMetricsServer(
  metrics: Metrics,
  port: number,
  host = '0.0.0.0',
): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'content-length': Buffer.byteLength(text),
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return server;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Array<{ name: string; ok: boolean; error?: string }>;
}

/** Runs every readiness check (each bounded in time); ok only when all pass. */
export async function checkReadiness(checks: ReadinessCheck[]): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), CHECK_TIMEOUT_MS);
        return { name: c.name, ok: true };
      } catch (e) {
        return { name: c.name, ok: false, error: (e as Error).message };
      }
    }),
  );
  return { status: results.every((r) => r.ok) ? 'ok' : 'unavailable', checks: results };
}

/**
 * The express app every service starts from: request ids, request logs, metrics and the
 * health endpoints, mounted before any route that needs the gateway assertion.
 */
export function createServiceApp(opts: ServiceAppOptions): ServiceApp {
  const app = loadExpress()();
  const metrics = opts.metrics ?? createMetrics(opts.service);
  let draining = false;
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', parseQuery);
  app.use(requestIdMiddleware);
  app.use((req, _res, next) => {
    runWithContext({ requestId: req.id, traceparent: saneTraceparent(req.header('traceparent')) }, next);
  });
  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const report = await checkReadiness(opts.readiness);
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });
  if (opts.metricsRoute !== false) app.get('/metrics', metricsHandler(metrics));
  app.use(requestLogMiddleware(opts.logger));
  app.use(httpMetricsMiddleware(metrics));
  return {
    app,
    metrics,
    setDraining: () => {
      draining = true;
    },
    finish: () => {
      app.use(notFoundHandler);
      app.use(errorHandler(opts.logger));
      return app;
    },
  };
}

export interface RunOptions {
  name: string;
  port: number;
  host?: string;
  logger: Logger;
  /** An express app from createServiceApp, or any request listener with a draining switch. */
  serviceApp: Pick<ServiceApp, 'setDraining'> & { app: http.RequestListener };
  /** Closed in order after the HTTP server stops: consumers, relays, then connections. */
  closers: Array<{ name: string; close: () => Promise<void> }>;
  graceSeconds: number;
}

/** Listens and owns graceful shutdown: readiness off, stop accepting, drain, close, exit. */
export async function runService(opts: RunOptions): Promise<http.Server> {
  const server = http.createServer(opts.serviceApp.app);
  const drain = drainOnStop(server);
  // Longer than the gateway agent's idle timeout so pooled sockets are not reset under it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? '0.0.0.0', resolve));
  opts.logger.info({ port: opts.port }, `${opts.name} listening`);
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    opts.logger.info({ signal }, 'shutting down');
    opts.serviceApp.setDraining();
    const hardExit = setTimeout(() => {
      opts.logger.error('grace period over, exiting');
      process.exit(1);
    }, opts.graceSeconds * 1000);
    hardExit.unref();
    await drain.stop();
    for (const c of opts.closers) {
      try {
        await c.close();
      } catch (e) {
        opts.logger.warn({ err: e, closer: c.name }, 'error while closing');
      }
    }
    opts.logger.info('stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return server;
}
