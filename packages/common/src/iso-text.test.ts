import { isoText, keepIsoText } from './iso-text';

describe('isoText', () => {
  it('writes the kept text of a Date that still holds its instant', () => {
    // a text that toISOString would not write tells which one was used
    const d = keepIsoText(Date.UTC(2026, 10, 26), 'kept');
    expect(isoText(d)).toBe('kept');
    expect(d.toISOString()).toBe('2026-11-26T00:00:00.000Z');
  });

  it('writes a changed Date from its value, not from the text it was read as', () => {
    const d = keepIsoText(Date.parse('2026-11-26T10:09:30.345Z'), '2026-11-26T10:09:30.345Z');
    d.setUTCHours(12);
    expect(isoText(d)).toBe('2026-11-26T12:09:30.345Z');
    d.setTime(0);
    expect(isoText(d)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('writes any other Date as toISOString does', () => {
    expect(isoText(new Date(Date.UTC(1999, 0, 2, 3, 4, 5, 6)))).toBe('1999-01-02T03:04:05.006Z');
  });

  it('keeps a plain Date: its prototype and constructor, no enumerable keys', () => {
    const d = keepIsoText(0, '1970-01-01T00:00:00.000Z');
    expect(Object.getPrototypeOf(d)).toBe(Date.prototype);
    expect(d.constructor).toBe(Date);
    expect(Object.keys(d)).toEqual([]);
    expect(d).toEqual(new Date(0));
  });
});
