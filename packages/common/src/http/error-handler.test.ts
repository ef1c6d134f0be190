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
  it.each([
    ['gzip', 'Z_DATA_ERROR'],
    ['br', 'ERR__ERROR_FORMAT_PADDING_2'],
  ])('maps a %s body that does not decode (%s, 400 from body-parser) to 400 MALFORMED_JSON', (_, code) => {
    const e = Object.assign(new Error('incorrect header check'), { code, status: 400, expose: true });
    expect(toAppError(e)).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });
  });
  it('maps an unreachable database to 503 with Retry-After', () => {
    const e = Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' });
    expect(toAppError(e)).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
    });
  });
  it('maps the MongoDB errors of a client closed and connected again under an operation to 503', () => {
    for (const name of ['MongoExpiredSessionError', 'MongoNotConnectedError', 'MongoTopologyClosedError'])
      expect(toAppError(Object.assign(new Error('closed'), { name }))).toMatchObject({ status: 503 });
  });
  it('maps a socket closed under a driver to 503', () => {
    expect(
      toAppError(
        Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }),
      ),
    ).toMatchObject({ status: 503 });
  });
  it.each([
    ['08006', 'connection failure'],
    ['57P01', 'terminating connection due to administrator command'],
    ['57P03', 'the database system is starting up'],
    ['53300', 'too many connections'],
    ['40001', 'could not serialize access'],
    ['55P03', 'lock timeout'],
  ])('maps PostgreSQL %s (%s) to 503 with Retry-After', (code, message) => {
    expect(toAppError(Object.assign(new Error(message), { code }))).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '1' },
    });
  });
  it('maps a pool that cannot get a connection to 503', () => {
    expect(toAppError(new Error('timeout exceeded when trying to connect'))).toMatchObject({ status: 503 });
    expect(toAppError(new Error('Connection terminated unexpectedly'))).toMatchObject({ status: 503 });
  });
  it('maps a statement the server never answered (a silent partition) to 503', () => {
    expect(toAppError(new Error('Query read timeout'))).toMatchObject({ status: 503 });
  });
  it('maps a statement over its time budget to 504', () => {
    expect(
      toAppError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toMatchObject({ status: 504, code: 'QUERY_TIMEOUT' });
  });
  it('leaves a constraint violation and a syntax error to the code that caused them', () => {
    expect(toAppError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    expect(toAppError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBeUndefined();
  });
  it.each([
    ['a NUL character in text', '22021', 'invalid byte sequence for encoding "UTF8": 0x00'],
    ['a NUL character in jsonb', '22P05', 'unsupported Unicode escape sequence'],
    ['an unpaired surrogate in jsonb', '22P02', 'invalid input syntax for type json'],
  ])('maps %s that PostgreSQL refused (%s) to 400 VALIDATION_FAILED', (_, code, message) => {
    expect(toAppError(Object.assign(new Error(message), { code }))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
  });
  it("leaves an invalid cast of the service's own making (22P02, not json) to become a 500", () => {
    const e = Object.assign(new Error('invalid input syntax for type integer: "x"'), { code: '22P02' });
    expect(toAppError(e)).toBeUndefined();
  });
  it('maps a path parameter express could not percent-decode (its URIError, status 400) to 400 MALFORMED_URL', () => {
    const e = Object.assign(new URIError("Failed to decode param '%ff'"), { status: 400 });
    expect(toAppError(e)).toMatchObject({ status: 400, code: 'MALFORMED_URL' });
    // a URIError of the service's own (no status) stays a bug
    expect(toAppError(new URIError('URI malformed'))).toBeUndefined();
  });
  it('leaves unknown errors to become an opaque 500', () => {
    expect(toAppError(new TypeError('bug'))).toBeUndefined();
  });
});
