import {
  assertMustacheParses,
  DEFAULT_RENDER_LIMITS,
  MAX_RENDER_STEPS,
  MAX_RENDERED_CHARS,
  MAX_SECTION_DEPTH,
  RENDER_TIME_LIMIT_MS,
  renderMail,
} from './render';
import { MAX_ARRAY_ITEMS, sanitizeVariables } from './sanitize-variables';

const view = (v: Record<string, unknown>) => sanitizeVariables(v);
const tooComplex = expect.objectContaining({ status: 400, code: 'TEMPLATE_TOO_COMPLEX' });
/** `{{#a}}` n levels deep around `x` (the same array at every level, as the bomb does). */
const nested = (n: number, open = '#') => `${`{{${open}a}}`.repeat(n)}x${'{{/a}}'.repeat(n)}`;
const items = (n: number) => Array.from({ length: n }, () => ({}));

describe('template rendering is bounded (issue 12 item 8)', () => {
  it(`allows sections nested ${MAX_SECTION_DEPTH} deep and refuses ${MAX_SECTION_DEPTH + 1}, inverted ones included`, () => {
    expect(MAX_SECTION_DEPTH).toBe(4);
    expect(() => assertMustacheParses(nested(4), 'html')).not.toThrow();
    expect(() => assertMustacheParses(nested(5), 'html')).toThrow(tooComplex);
    expect(() => assertMustacheParses(`{{#a}}{{^b}}${nested(3)}{{/b}}{{/a}}`, 'text')).toThrow(tooComplex);
    // siblings do not add up: depth is nesting, not count
    expect(() => assertMustacheParses(nested(4).repeat(20), 'text')).not.toThrow();
    // and the check runs before every render too (templates stored before the rule)
    expect(() => renderMail({ subject: 's', text: nested(5) }, view({ a: [1] }))).toThrow(tooComplex);
  });

  it(`takes arrays of ${MAX_ARRAY_ITEMS} items in variables and refuses ${MAX_ARRAY_ITEMS + 1}`, () => {
    expect(MAX_ARRAY_ITEMS).toBe(100);
    expect(() => sanitizeVariables({ a: items(100) })).not.toThrow();
    expect(() => sanitizeVariables({ a: items(101) })).toThrow(
      expect.objectContaining({ status: 400, code: 'VALIDATION_FAILED' }),
    );
    expect(() => sanitizeVariables({ deep: { list: items(101) } })).toThrow(/more than 100 items/);
  });

  it(`renders exactly ${MAX_RENDER_STEPS} steps and stops at one more`, () => {
    // steps: the subject's one text token, the section once, 100 items x k variables, r more
    const k = 499;
    const steps = (r: number) => 1 + 1 + 100 * k + r;
    const content = (r: number) => ({
      subject: 'x',
      text: `{{#a}}${'{{b}}'.repeat(k)}{{/a}}${'{{b}}'.repeat(r)}`,
    });
    const v = view({ a: items(100), b: 'y' });
    // a stopped clock: this is about steps, however loaded the machine running the test is
    const limits = { ...DEFAULT_RENDER_LIMITS, now: () => 0 };
    expect(steps(98)).toBe(MAX_RENDER_STEPS);
    expect(renderMail(content(98), v, limits).text).toHaveLength(100 * k + 98);
    expect(() => renderMail(content(99), v, limits)).toThrow(
      expect.objectContaining({ code: 'TEMPLATE_TOO_COMPLEX', message: expect.stringMatching(/steps/) }),
    );
  });

  it(`produces a mail of ${MAX_RENDERED_CHARS} characters over all parts and refuses one more`, () => {
    const mail = (n: number) => renderMail({ subject: 'x', text: '{{s}}' }, view({ s: 'y'.repeat(n) }));
    expect(mail(MAX_RENDERED_CHARS - 1).text).toHaveLength(MAX_RENDERED_CHARS - 1);
    expect(() => mail(MAX_RENDERED_CHARS)).toThrow(tooComplex);
    // HTML escaping counts: what is produced, not what was given
    const html = (n: number) => renderMail({ subject: 'x', html: '{{s}}' }, view({ s: '&'.repeat(n) }));
    expect(html(Math.floor((MAX_RENDERED_CHARS - 1) / 5)).html).toMatch(/^(&amp;)+$/);
    expect(() => html(Math.floor((MAX_RENDERED_CHARS - 1) / 5) + 1)).toThrow(tooComplex);
  });

  it(`stops a render that runs past ${RENDER_TIME_LIMIT_MS} ms (at the limit it completes)`, () => {
    const clock = (elapsed: number) => {
      let calls = 0;
      return () => (calls++ === 0 ? 0 : elapsed);
    };
    const render = (elapsed: number) =>
      renderMail({ subject: 'x', text: 'y' }, view({}), { ...DEFAULT_RENDER_LIMITS, now: clock(elapsed) });
    expect(render(RENDER_TIME_LIMIT_MS).text).toBe('y');
    expect(() => render(RENDER_TIME_LIMIT_MS + 1)).toThrow(tooComplex);
  });

  it('answers the bomb (nested sections over 60 items) in well under a second', () => {
    const v = view({ a: items(60) });
    for (const depth of [4, 5]) {
      const started = performance.now();
      expect(() => renderMail({ subject: 's', html: nested(depth) }, v)).toThrow(tooComplex);
      expect(performance.now() - started).toBeLessThan(500);
    }
  });
});
