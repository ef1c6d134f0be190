import { withField } from './context';

describe('withField', () => {
  it('returns a copy with the (dotted) path set, the original untouched, keys in their place', () => {
    const doc = { a: 1, b: { c: 2, d: 3 }, e: 4 };
    const out = withField(doc, 'b.c', 9);
    expect(out).toEqual({ a: 1, b: { c: 9, d: 3 }, e: 4 });
    expect(Object.keys(out)).toEqual(['a', 'b', 'e']);
    expect(doc).toEqual({ a: 1, b: { c: 2, d: 3 }, e: 4 });
    expect(withField(doc, 'x.y', 1)).toEqual({ ...doc, x: { y: 1 } });
    expect(withField({ a: 5 }, 'a.b', 1)).toEqual({ a: { b: 1 } });
  });

  it('sets a `__proto__` segment as an own field, never as the prototype', () => {
    const out = withField({ a: 1 }, 'a.__proto__', { polluted: true });
    const inner = out.a as Record<string, unknown>;
    expect(Object.getPrototypeOf(inner)).toBe(Object.prototype);
    expect(Object.hasOwn(inner, '__proto__')).toBe(true);
    expect((inner as { polluted?: unknown }).polluted).toBeUndefined();
    const top = withField({}, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(top)).toBe(Object.prototype);
    expect(Object.keys(top)).toEqual(['__proto__']);
  });
});
