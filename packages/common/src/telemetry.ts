import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

let enabled = false;
let tracer: Tracer | undefined;
let rpcMetadata: typeof import('@opentelemetry/core') | undefined;

/** True once startTelemetry has started the SDK: callers skip span work (and its garbage) otherwise. */
export function tracingEnabled(): boolean {
  return enabled;
}

/** The project's tracer; only meaningful when tracingEnabled(). */
export function baasTracer(): Tracer {
  tracer ??= trace.getTracer('@baas/common');
  return tracer;
}

const UNOBSERVED = /^\/(livez|readyz|metrics)(?:[/?]|$)/;

export interface TelemetryOptions {
  /** Replace the OTLP exporter (tests: an in-memory exporter); turn tracing on by themselves. */
  spanProcessors?: SpanProcessor[];
}

/**
 * OpenTelemetry tracing, on when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set and
 * OTEL_SDK_DISABLED is not `true`; off, nothing is loaded and the API's no-op tracer answers.
 * Call first thing in main.ts, from `@baas/common/telemetry` (the package index loads express and
 * the drivers, which the instrumentations must see being loaded). Instruments node:http (server
 * spans named by route template), express, undici/fetch (the gateway's upstream pools), pg,
 * mongodb, ioredis and the AWS SDK (S3); NATS and SMTP spans are made by the code that publishes,
 * consumes and sends (events/tracing.ts, nats-tracing.ts, traceClient).
 */
export function startTelemetry(
  serviceName: string,
  opts: TelemetryOptions = {},
): { shutdown: () => Promise<void> } {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!opts.spanProcessors && (!endpoint || process.env.OTEL_SDK_DISABLED === 'true'))
    return { shutdown: () => Promise.resolve() };
  // The current (stable) HTTP and database attribute names unless the operator chose otherwise;
  // the instrumentations read this when they are constructed.
  process.env.OTEL_SEMCONV_STABILITY_OPT_IN ??= 'http,database';
  // Traces only: metrics are Prometheus' and logs go to stdout (the SDK's default would set up an
  // OTLP log pipeline that nothing writes to).
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  // Loaded lazily so a service without tracing pays nothing for the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { AwsInstrumentation } =
    require('@opentelemetry/instrumentation-aws-sdk') as typeof import('@opentelemetry/instrumentation-aws-sdk');
  const output = opts.spanProcessors
    ? { spanProcessors: opts.spanProcessors }
    : {
        traceExporter: new (
          require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')
        ).OTLPTraceExporter(),
      };
  rpcMetadata = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const instrumentations = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => UNOBSERVED.test(req.url ?? ''),
    }),
    // Router spans end at once and say nothing. Middleware spans stay: ignoring them makes
    // 0.52 drop a mounted router's prefix from the route template (it pops a path per
    // ignored middleware, stored or not).
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.ROUTER] }),
    new UndiciInstrumentation(),
    // Background loops (outbox relay, sweeps, polls) make no root spans of their own.
    new PgInstrumentation({ requireParentSpan: true }),
    new MongoDBInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
    new AwsInstrumentation({ suppressInternalInstrumentation: true }),
  ];
  const sdk = new NodeSDK({
    serviceName,
    ...output,
    instrumentations,
  });
  sdk.start();
  enabled = true;
  return {
    // The SDK's shutdown flushes and stops the providers but leaves the instrumentations hooked
    // into the modules (undici's diagnostics channels, the patched drivers) and the API's globals
    // set: a later start in the same process (tests run in one) would trace through both, and an
    // undici request would carry a trace context per SDK ever started.
    shutdown: async () => {
      enabled = false;
      tracer = undefined; // a proxy of the provider shut down
      await sdk.shutdown();
      for (const i of instrumentations) i.disable();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * Names the current HTTP server span by a route template (`GET /api/data`), for servers that
 * route without express (the gateway). Does nothing when tracing is off.
 */
export function setServerRoute(route: string): void {
  if (!enabled || !rpcMetadata) return;
  const meta = rpcMetadata.getRPCMetadata(context.active());
  if (meta?.type === rpcMetadata.RPCType.HTTP) meta.route = route;
}

/**
 * Runs `fn` in a CLIENT span (a call no instrumentation sees, e.g. SMTP); just `fn()` when
 * tracing is off.
 */
export async function traceClient<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  if (!enabled) return fn();
  return baasTracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, (span) =>
    endWith(span, fn),
  );
}

/** Ends the span when `fn` settles, with an error status (and the exception) if it failed. */
export async function endWith<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    span.recordException(e as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error)?.message });
    throw e;
  } finally {
    span.end();
  }
}
