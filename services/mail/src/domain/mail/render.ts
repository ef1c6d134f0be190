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

const writer = new Mustache.Writer();
// The typings do not declare the per-writer cache; mustache.js reads it from this property.
(writer as unknown as { templateCache: BoundedCache }).templateCache = new BoundedCache(500);

const plain = (v: unknown): string => String(v);
/** Partials are not supported: `{{> x}}` renders nothing rather than reading anything. */
const NO_PARTIALS = {};

/** Throws 400 with mustache's own message when a template does not parse. */
export function assertMustacheParses(template: string, path: string): void {
  try {
    writer.parse(template);
  } catch (e) {
    throw errors.badRequest('INVALID_TEMPLATE', `Template ${path} does not parse: ${(e as Error).message}`, [
      { path, message: (e as Error).message },
    ]);
  }
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

function renderPart(template: string, view: TemplateView, path: string, html: boolean): string {
  assertMustacheParses(template, path);
  return html
    ? writer.render(template, view, NO_PARTIALS)
    : writer.render(template, view, NO_PARTIALS, { escape: plain });
}

/**
 * Substitutes variables: in HTML `{{x}}` is HTML-escaped and `{{{x}}}` is raw; the subject and
 * the text part are plain text, so nothing is escaped there. An empty subject or body is 400.
 */
export function renderMail(content: MailContent, view: TemplateView): RenderedMail {
  const subject = singleLine(renderPart(content.subject, view, 'subject', false)).trim();
  if (subject === '')
    throw errors.badRequest('EMPTY_SUBJECT', 'The subject is empty after variable substitution');
  const out: RenderedMail = { subject };
  if (content.html !== undefined) {
    const html = renderPart(content.html, view, 'html', true);
    if (htmlHasContent(html)) out.html = html;
  }
  if (content.text !== undefined) {
    const text = renderPart(content.text, view, 'text', false);
    if (text.trim() !== '') out.text = text;
  }
  if (out.html === undefined && out.text === undefined)
    throw errors.badRequest('EMPTY_BODY', 'The body is empty after variable substitution');
  return out;
}
