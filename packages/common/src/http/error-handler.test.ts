import { toAppError } from './error-handler';
import { errors } from '../errors';

describe('toAppError', () => {
  it('keeps AppErrors as they are', () => {
    const e = errors.quotaExceeded();
    expect(toAppError(e)).toBe(e);
  });
  it.each([
    ['entity.parse.failed', 400, 'MALFORMED_JSON'],
    ['entity.too.large', 413, 'PAYLOAD_TOO_LARGE'],
    ['charset.unsupported', 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('maps body-parser %s to %i %s', (type, status, code) => {
    expect(toAppError(Object.assign(new Error('x'), { type }))).toMatchObject({ status, code });
  });
  it('maps an unreachable database to 503 with Retry-After', () => {
    const e = Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' });
    expect(toAppError(e)).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
    });
  });
  it('maps a socket closed under a driver to 503', () => {
    expect(
      toAppError(
        Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }),
      ),
    ).toMatchObject({ status: 503 });
  });
  it('leaves unknown errors to become an opaque 500', () => {
    expect(toAppError(new TypeError('bug'))).toBeUndefined();
  });
});
