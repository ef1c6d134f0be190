import Mustache from 'mustache';
import { errors } from '@baas/common';
import type { TemplateView } from './sanitize-variables';

/** What a template or a direct send provides before substitution. */
export interface MailContent {
  subject: string;
  html?: string;
  text?: string;
}

export interface RenderedMail {
  subject: string;
  html?: string;
  text?: string;
}

/** A bounded parse cache: the default writer's cache grows with every distinct direct-mode body. */
class BoundedCache {
  private readonly map = new Map<string, unknown>();
  constructor(private readonly max: number) {}
  get(key: string): unknown {
    return this.map.get(key);
  }
  set(key: string, value: unknown): void {
    if (this.map.size >= this.max) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    this.map.set(key, value);
  }
  clear(): void {
    this.map.clear();
  }
}

/**
 * Rendering is bounded (issue 12 item 8): nested sections over arrays multiply, and one render
 * runs on the event loop that also sends every tenant's system mail. A template may nest sections
 * at most MAX_SECTION_DEPTH deep (checked on save and before every render); a render visits at
 * most MAX_RENDER_STEPS tokens, produces at most MAX_RENDERED_CHARS characters over all parts of
 * the mail, and stops after RENDER_TIME_LIMIT_MS. Past any of them the answer is 400
 * TEMPLATE_TOO_COMPLEX (a system mail with such an override is dropped, not retried).
 */
export const MAX_SECTION_DEPTH = 4;
export const MAX_RENDER_STEPS = 50_000;
export const MAX_RENDERED_CHARS = 1_000_000;
export const RENDER_TIME_LIMIT_MS = 250;

export interface RenderLimits {
  steps: number;
  chars: number;
  timeMs: number;
  /** The clock the time limit reads (tests move it). */
  now: () => number;
}

export const DEFAULT_RENDER_LIMITS: RenderLimits = {
  steps: MAX_RENDER_STEPS,
  chars: MAX_RENDERED_CHARS,
  timeMs: RENDER_TIME_LIMIT_MS,
  now: () => performance.now(),
};

const tooComplex = (message: string) => errors.badRequest('TEMPLATE_TOO_COMPLEX', message);

/** What one mail's render may still spend; shared by its subject, HTML and text. */
class RenderBudget {
  steps = 0;
  chars = 0;
  private readonly deadline: number;
  constructor(private readonly limits: RenderLimits) {
    this.deadline = limits.now() + limits.timeMs;
  }
  step(): void {
    if (++this.steps > this.limits.steps)
      throw tooComplex(`Rendering the template takes more than ${this.limits.steps} steps`);
    // The clock is read every 256 steps (and on the first), which keeps it cheap.
    if ((this.steps & 255) === 1 && this.limits.now() > this.deadline)
      throw tooComplex(`Rendering the template takes longer than ${this.limits.timeMs} ms`);
  }
  emit(n: number): void {
    this.chars += n;
    if (this.chars > this.limits.chars)
      throw tooComplex(`The rendered mail is longer than ${this.limits.chars} characters`);
  }
}

/** A parsed token: [kind, name or text, start, end, children of a section, ...]. */
type Token = [string, string, number, number, Token[]?, number?];

/**
 * mustache.js's writer with the budget applied to every token it renders. Every character of the
 * output comes from one leaf token (text or variable), so counting leaves counts the output
 * before it is concatenated; sections count a step each time they are entered.
 */
class BoundedWriter extends Mustache.Writer {
  budget: RenderBudget | undefined;

  override renderTokens(
    tokens: string[][],
    context: Mustache.Context,
    partials?: Mustache.PartialsOrLookupFn,
    originalTemplate?: string,
    config?: Mustache.RenderOptions,
  ): string {
    const budget = this.budget;
    if (!budget) throw new Error('render without a budget');
    let buffer = '';
    for (const token of tokens) {
      budget.step();
      // mustache.js answers undefined for a section that renders nothing, whatever the typings say
      const kind = token[0];
      let value: string | undefined;
      if (kind === '#') value = this.renderSection(token, context, partials, originalTemplate, config);
      else if (kind === '^') value = this.renderInverted(token, context, partials, originalTemplate, config);
      else if (kind === '&' || kind === 'name' || kind === 'text') {
        value =
          kind === '&'
            ? this.unescapedValue(token, context)
            : kind === 'name'
              ? this.escapedValue(token, context, config)
              : this.rawValue(token);
        if (value !== undefined) budget.emit(String(value).length);
      }
      // comments, and partials ('>': nothing here, NO_PARTIALS), render nothing
      if (value !== undefined) buffer += value;
    }
    return buffer;
  }
}

const writer = new BoundedWriter();
// The typings do not declare the per-writer cache; mustache.js reads it from this property.
(writer as unknown as { templateCache: BoundedCache }).templateCache = new BoundedCache(500);

const plain = (v: unknown): string => String(v);
/** Partials are not supported: `{{> x}}` renders nothing rather than reading anything. */
const NO_PARTIALS = {};

/** The deepest nesting of sections (`{{#x}}`, `{{^x}}`) in parsed tokens. */
export function sectionDepth(tokens: Token[]): number {
  let deepest = 0;
  for (const t of tokens)
    if ((t[0] === '#' || t[0] === '^') && t[4]) deepest = Math.max(deepest, 1 + sectionDepth(t[4]));
  return deepest;
}

/**
 * Throws 400 with mustache's own message when a template does not parse, and 400
 * TEMPLATE_TOO_COMPLEX when its sections nest deeper than MAX_SECTION_DEPTH.
 */
export function assertMustacheParses(template: string, path: string): void {
  let tokens: Token[];
  try {
    tokens = writer.parse(template) as Token[];
  } catch (e) {
    throw errors.badRequest('INVALID_TEMPLATE', `Template ${path} does not parse: ${(e as Error).message}`, [
      { path, message: (e as Error).message },
    ]);
  }
  const depth = sectionDepth(tokens);
  if (depth > MAX_SECTION_DEPTH)
    throw errors.badRequest(
      'TEMPLATE_TOO_COMPLEX',
      `Template ${path} nests sections ${depth} deep; at most ${MAX_SECTION_DEPTH} are allowed`,
      [{ path, message: `sections nested ${depth} deep (at most ${MAX_SECTION_DEPTH})` }],
    );
}

// Control characters are exactly what these must match.
/* eslint-disable no-control-regex */
const LINE_BREAKS = /[\r\n\u0085\u2028\u2029\u000b\u000c]+/g;
const OTHER_CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f]/g;
/* eslint-enable no-control-regex */

/** CR, LF and the Unicode line separators can never reach a header. */
export function singleLine(value: string): string {
  return value.replace(LINE_BREAKS, ' ').replace(OTHER_CONTROLS, '');
}

/** Visible content of an HTML body: markup, styles and comments do not count. */
function htmlHasContent(html: string): boolean {
  if (/<img\b/i.test(html)) return true;
  const visible = html
    .replace(/<head[\s\S]*?<\/head>/gi, '')
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;|&#160;|\u00a0/g, ' ');
  return visible.trim().length > 0;
}

function renderPart(
  template: string,
  view: TemplateView,
  path: string,
  html: boolean,
  budget: RenderBudget,
): string {
  assertMustacheParses(template, path);
  // Rendering is synchronous, so the one writer carries one render's budget at a time.
  writer.budget = budget;
  try {
    return html
      ? writer.render(template, view, NO_PARTIALS)
      : writer.render(template, view, NO_PARTIALS, { escape: plain });
  } finally {
    writer.budget = undefined;
  }
}

/**
 * Substitutes variables: in HTML `{{x}}` is HTML-escaped and `{{{x}}}` is raw; the subject and
 * the text part are plain text, so nothing is escaped there. An empty subject or body is 400.
 */
export function renderMail(
  content: MailContent,
  view: TemplateView,
  limits: RenderLimits = DEFAULT_RENDER_LIMITS,
): RenderedMail {
  const budget = new RenderBudget(limits);
  const subject = singleLine(renderPart(content.subject, view, 'subject', false, budget)).trim();
  if (subject === '')
    throw errors.badRequest('EMPTY_SUBJECT', 'The subject is empty after variable substitution');
  const out: RenderedMail = { subject };
  if (content.html !== undefined) {
    const html = renderPart(content.html, view, 'html', true, budget);
    if (htmlHasContent(html)) out.html = html;
  }
  if (content.text !== undefined) {
    const text = renderPart(content.text, view, 'text', false, budget);
    if (text.trim() !== '') out.text = text;
  }
  if (out.html === undefined && out.text === undefined)
    throw errors.badRequest('EMPTY_BODY', 'The body is empty after variable substitution');
  return out;
}
