import { createMetrics } from './metrics';
import { eventMetrics, outboxMetrics } from './messaging-metrics';

const line = (text: string, prefix: string) =>
  text.split('\n').find((l) => l.startsWith(prefix) && !l.startsWith('#'));

describe('createMetrics', () => {
  it('names its request histogram with the platform prefix and says which release and store run', async () => {
    const m = createMetrics('data', { store: 'postgres', version: '1.2.3' });
    const text = await m.registry.metrics();
    expect(text).toContain('# TYPE baas_http_server_request_duration_seconds histogram');
    expect(line(text, 'baas_build_info{')).toBe(
      `baas_build_info{version="1.2.3",node_version="${process.version}",store="postgres",service="data"} 1`,
    );
  });

  it('takes the version from the root package.json and the store none by default', async () => {
    const text = await createMetrics('gateway').registry.metrics();
    expect(line(text, 'baas_build_info{')).toMatch(
      /^baas_build_info\{version="\d+\.\d+\.\d+[^"]*",.*store="none"/,
    );
  });
});

describe('eventMetrics', () => {
  it('counts publishes, deliveries by outcome and redeliveries per consumer, and times handlers', async () => {
    const m = createMetrics('mail');
    const o = eventMetrics(m);
    o.published('mail.sent');
    o.published('mail.sent');
    o.publishFailed('mail.failed');
    o.watchConsumer('mail-auth-emails', () => Promise.resolve({ pending: 0, ackPending: 0, deadLetters: 0 }));
    o.consumed('mail-auth-emails', 'ack', 0.02);
    o.consumed('mail-auth-emails', 'retry', 0.5);
    o.redelivered('mail-auth-emails');
    const text = await m.registry.metrics();
    expect(line(text, 'baas_events_published_total{type="mail.sent"')).toMatch(/ 2$/);
    expect(line(text, 'baas_events_publish_failures_total{type="mail.failed"')).toMatch(/ 1$/);
    expect(line(text, 'baas_events_consumed_total{consumer="mail-auth-emails",outcome="ack"')).toMatch(/ 1$/);
    expect(
      line(text, 'baas_events_consumed_total{consumer="mail-auth-emails",outcome="dead_letter"'),
    ).toMatch(/ 0$/);
    expect(line(text, 'baas_events_redelivered_total{consumer="mail-auth-emails"')).toMatch(/ 1$/);
    expect(line(text, 'baas_event_handler_duration_seconds_count{')).toMatch(
      /consumer="mail-auth-emails"} 2$/,
    );
  });

  it("reads each watched consumer's lag once for the three gauges of a scrape, and forgets an unwatched one", async () => {
    const m = createMetrics('data');
    const o = eventMetrics(m);
    let reads = 0;
    const unwatch = o.watchConsumer('data-project-deleted', () => {
      reads++;
      return Promise.resolve({ pending: 4, ackPending: 2, deadLetters: 1 });
    });
    let text = await m.registry.metrics();
    expect(line(text, 'baas_consumer_pending_messages{consumer="data-project-deleted"')).toMatch(/ 4$/);
    expect(line(text, 'baas_consumer_ack_pending_messages{consumer="data-project-deleted"')).toMatch(/ 2$/);
    expect(line(text, 'baas_dead_letter_messages{consumer="data-project-deleted"')).toMatch(/ 1$/);
    await m.registry.metrics();
    expect(reads).toBe(1);
    unwatch();
    text = await m.registry.metrics();
    expect(line(text, 'baas_consumer_pending_messages{')).toBeUndefined();
  });

  it('leaves the lag gauges without a series while JetStream does not answer', async () => {
    const m = createMetrics('data');
    eventMetrics(m).watchConsumer('data-project-deleted', () => Promise.reject(new Error('no responders')));
    const text = await m.registry.metrics();
    expect(line(text, 'baas_consumer_pending_messages{')).toBeUndefined();
  });
});

describe('outboxMetrics', () => {
  it("sums every relay's backlog and counts failed passes", async () => {
    const m = createMetrics('data');
    const o = outboxMetrics(m);
    o.watchBacklog(() => Promise.resolve(3));
    const stop = o.watchBacklog(() => Promise.resolve(4));
    o.relayFailed();
    let text = await m.registry.metrics();
    expect(line(text, 'baas_outbox_backlog{')).toBe('baas_outbox_backlog{service="data"} 7');
    expect(line(text, 'baas_outbox_relay_failures_total{')).toBe(
      'baas_outbox_relay_failures_total{service="data"} 1',
    );
    stop();
    text = await m.registry.metrics();
    expect(line(text, 'baas_outbox_backlog{')).toBe('baas_outbox_backlog{service="data"} 3');
  });
});
