/**
 * OpenTelemetry tracing, enabled when OTEL_EXPORTER_OTLP_ENDPOINT is set. Call before anything
 * else is required so the http instrumentation can patch node:http.
 */
export function startTelemetry(serviceName: string): { shutdown: () => Promise<void> } {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return { shutdown: () => Promise.resolve() };
  // Loaded lazily so a service without tracing pays nothing for the SDK.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    serviceName,
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => /^\/(livez|readyz|metrics)/.test(req.url ?? ''),
      }),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
