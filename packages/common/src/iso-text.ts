/**
 * The ISO text of a Date, kept by the code that read it. A document's dates come from the store
 * and leave as ISO strings (a list of 20 documents: 40 of them); V8's `toISOString` (~1 us) was
 * most of that round trip, while PostgreSQL had sent the same instant as text. The reader keeps the
 * text on the Date it returns (`keepIsoText`) and the view writes it (`isoText`), for as long as
 * the Date still holds the instant the text was read as: a Date changed since (`setTime`,
 * `setUTCHours`...) is written from its value. The Date stays a plain Date (its constructor, its
 * prototype: libraries that compare constructors, as mingo's equality does, see a Date); the two
 * properties it gains are keyed by symbols, which `Object.keys`, JSON and jest's equality ignore
 * (node's `isDeepStrictEqual` would not: nothing here compares dates with it).
 */
const TEXT = Symbol('isoText');
const AT = Symbol('isoTextAt');

interface Kept {
  [TEXT]?: string;
  [AT]?: number;
}

/** A Date of `ms`, which keeps `iso` (the text `toISOString` writes for that instant) for `isoText`. */
export function keepIsoText(ms: number, iso: string): Date {
  const d = new Date(ms) as Date & Kept;
  d[TEXT] = iso;
  d[AT] = ms;
  return d;
}

/** `d.toISOString()`, from the text kept when `d` was read if it still holds that instant. */
export function isoText(d: Date): string {
  const k = d as Date & Kept;
  const text = k[TEXT];
  return text !== undefined && k[AT] === d.getTime() ? text : d.toISOString();
}
