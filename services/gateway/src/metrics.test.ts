import { createMetrics } from '@baas/common';
import { gatewayMetrics, statusClass } from './metrics';
import { upstreamFailure } from './http/upstream';

describe('gateway metrics', () => {
  it('labels answers by status class', () => {
    expect([200, 204, 301, 404, 429, 503, 99, 600].map(statusClass)).toEqual([
      '2xx',
      '2xx',
      '3xx',
      '4xx',
      '4xx',
      '5xx',
      'other',
      'other',
    ]);
  });

  it('tells an unreachable service from a slow one and from a reset', () => {
    expect(upstreamFailure('ECONNREFUSED')).toBe('unavailable');
    expect(upstreamFailure('EAI_AGAIN')).toBe('unavailable');
    expect(upstreamFailure('UND_ERR_HEADERS_TIMEOUT')).toBe('timeout');
    expect(upstreamFailure('ECONNRESET')).toBe('reset');
    expect(upstreamFailure(undefined)).toBe('reset');
  });

  it('records rejections per limiter and upstream latency and errors per target', async () => {
    const m = createMetrics('gateway');
    const o = gatewayMetrics(m, ['auth', 'data']);
    o.rateLimited('auth');
    o.upstreamAnswered('data', 201, 0.03);
    o.upstreamFailed('auth', 'timeout');
    const text = await m.registry.metrics();
    expect(text).toContain('baas_rate_limit_rejections_total{limiter="auth",service="gateway"} 1');
    expect(text).toContain('baas_rate_limit_rejections_total{limiter="global",service="gateway"} 0');
    expect(text).toContain(
      'baas_upstream_request_duration_seconds_count{service="gateway",target="data",status_class="2xx"} 1',
    );
    expect(text).toContain('baas_upstream_errors_total{target="auth",reason="timeout",service="gateway"} 1');
    expect(text).toContain(
      'baas_upstream_errors_total{target="data",reason="unavailable",service="gateway"} 0',
    );
  });
});
