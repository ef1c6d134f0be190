import diagnostics from 'node:diagnostics_channel';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { infra, requireInfra, storeNeed } from '../../../../test/support/infra';
import { newProjectId, startHarness, type Harness } from './harness';

/**
 * The storage service keeps its connections to the S3 server: objects one after another go over
 * one socket. versitygw answers `Connection: close` unless started with `--keep-alive` (what
 * `npm run up` and docker-compose.yml pass); without it every object cost a new connection.
 */
describe(`connections to S3 (${infra.store})`, () => {
  let h: Harness;
  const opened: unknown[] = [];
  const onSocket = (message: unknown) => void opened.push(message);

  beforeAll(async () => {
    await requireInfra(storeNeed(), 's3');
    h = await startHarness('s3', 1024 * 1024);
    diagnostics.subscribe('net.client.socket', onSocket);
  });
  afterAll(async () => {
    diagnostics.unsubscribe('net.client.socket', onSocket);
    await h?.close();
  });

  it('sends ten objects one after another over a single connection', async () => {
    const prefix = newProjectId();
    await h.store.exists(`${prefix}/warm-up`); // the client's first connection
    opened.length = 0;
    for (let i = 0; i < 10; i++) {
      const key = `${prefix}/object-${i}.bin`;
      await h.store.put(key, Readable.from([randomBytes(1024)]), 'application/octet-stream');
      expect(await h.store.exists(key)).toBe(true);
    }
    // the store talks to S3 only: any socket opened meanwhile is a new connection to it
    if (opened.length > 0)
      throw new Error(
        `${opened.length} new connections to S3 for 20 requests in a row: the server at ` +
          `${infra.s3Endpoint} closes them (versitygw without --keep-alive? \`npm run up\` ` +
          'restarts one it started without the flag)',
      );
  });
});
