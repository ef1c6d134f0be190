import { createEvent } from './events/envelope';
import { runWithContext, saneTraceparent } from './request-context';
import { trustedProjectId } from './tenancy';

const pid = trustedProjectId('64b7f0c2a1b2c3d4e5f60718');
const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('ambient request context', () => {
  it('gives events created while handling a request its request id and trace', async () => {
    const e = await runWithContext({ requestId: 'r-1', traceparent: tp }, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return createEvent('user.deleted', pid, { userId: 'u' });
    });
    expect(e).toMatchObject({ requestId: 'r-1', traceparent: tp });
  });

  it('lets the caller name them, and leaves them out outside a request', () => {
    expect(
      runWithContext({ requestId: 'r', traceparent: tp }, () =>
        createEvent('user.deleted', pid, { userId: 'u' }, { requestId: 'x' }),
      ).requestId,
    ).toBe('x');
    const bare = createEvent('user.deleted', pid, { userId: 'u' });
    expect(bare.requestId).toBeNull();
    expect(bare.traceparent).toBeUndefined();
  });

  it('accepts only well-formed traceparent headers', () => {
    expect(saneTraceparent(tp)).toBe(tp);
    expect(saneTraceparent('00-xyz')).toBeUndefined();
    expect(saneTraceparent(`${tp}\r\nx: y`)).toBeUndefined();
  });
});
