import {
  adminListLimit,
  decodeTimeKeyset,
  encodeTimeKeyset,
  timeKeysetPage,
  timeKeysetRequest,
  type TimeKeyset,
} from './admin-list';

describe('admin lists by (time, id) keyset', () => {
  const at = new Date('2025-01-05T10:00:00.123Z');

  it('a cursor gives back the exact position it was made from', () => {
    const p: TimeKeyset = { at, id: '665f1c2ab4d3e2f1a0b9c8d7/Jm3kQ9xZt1Lw0pR7yV2sBc.png' };
    expect(decodeTimeKeyset(encodeTimeKeyset(p))).toEqual(p);
  });

  it.each([
    'bogus',
    '',
    Buffer.from('["x","y"]').toString('base64url'),
    Buffer.from('[1,2]').toString('base64url'),
  ])('refuses %j as a cursor with 400 VALIDATION_FAILED naming it', (raw) => {
    expect(() => decodeTimeKeyset(raw)).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ path: 'cursor' })],
      }),
    );
  });

  it('clamps the limit to 100 and defaults it to 20; an empty cursor is the first page', () => {
    expect(adminListLimit(undefined)).toBe(20);
    expect(adminListLimit('500')).toBe(100);
    expect(timeKeysetRequest({ cursor: '' })).toEqual({ limit: 20, cursor: '' });
    const cursor = encodeTimeKeyset({ at, id: 'a' });
    expect(timeKeysetRequest({ limit: '5', cursor })).toEqual({ limit: 5, cursor, before: { at, id: 'a' } });
  });

  it('pages from limit + 1 rows: a next cursor at the last item shown, null on the last page', () => {
    const rows = ['c', 'b', 'a'].map((id) => ({ id, at }));
    const req = timeKeysetRequest({ limit: '2' });
    const first = timeKeysetPage(
      rows,
      req,
      (r) => r,
      (r) => r.id,
    );
    expect(first).toEqual({
      items: ['c', 'b'],
      cursor: '',
      nextCursor: encodeTimeKeyset({ at, id: 'b' }),
      limit: 2,
    });
    expect(
      timeKeysetPage(
        rows.slice(0, 2),
        req,
        (r) => r,
        (r) => r.id,
      ).nextCursor,
    ).toBeNull();
  });
});
