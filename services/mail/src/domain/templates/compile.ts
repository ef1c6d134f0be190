import { errors } from '@baas/common';
import { assertMustacheParses } from '../mail/render';
import type { TemplateBody, TemplateContent } from './template';

interface MjmlValidationIssue {
  line?: number;
  tagName?: string;
  message?: string;
}

/**
 * Compiles MJML strictly. Includes are ignored, so a template can never read a server file.
 * The compiler's own messages are returned, without the server path it mentions.
 */
export async function compileMjml(source: string): Promise<string> {
  // Loaded on the first template that has MJML, not at boot: the compiler and what it brings
  // (html-minifier, clean-css, uglify-js, js-beautify, cheerio) hold about 12 MB of heap that
  // a mail service which only sends never needs.
  const { default: mjml2html } = await import('mjml');
  try {
    // mjml 4 answers synchronously, mjml 5 (and the typings) with a promise: accept both.
    const r = await mjml2html(source, {
      validationLevel: 'strict',
      ignoreIncludes: true,
      keepComments: false,
    });
    return r.html;
  } catch (e) {
    const issues = (e as { errors?: MjmlValidationIssue[] }).errors;
    if (Array.isArray(issues) && issues.length > 0) {
      const details = issues.map((i) => ({
        path: `mjml${i.line !== undefined ? `:${i.line}` : ''}${i.tagName ? ` (${i.tagName})` : ''}`,
        message: i.message ?? 'invalid',
      }));
      const summary = details.map((d) => `${d.path}: ${d.message}`).join('; ');
      throw errors.badRequest('INVALID_MJML', `MJML does not compile: ${summary}`, details);
    }
    const message = (e as Error).message || 'compilation failed';
    throw errors.badRequest('INVALID_MJML', `MJML does not compile: ${message}`, [{ path: 'mjml', message }]);
  }
}

/** Validates a template on save: subject, at least one body, mustache parses, MJML compiles. */
export async function prepareTemplate(key: string, body: TemplateBody): Promise<TemplateContent> {
  if (body.html === undefined && body.text === undefined && body.mjml === undefined)
    throw errors.validation('A template needs at least one of html, text or mjml', [
      { path: 'html', message: 'one of html, text, mjml is required' },
    ]);
  if (body.html !== undefined && body.mjml !== undefined)
    throw errors.validation('Give the HTML body as html or as mjml, not both', [
      { path: 'mjml', message: 'html and mjml are mutually exclusive' },
    ]);
  if (/[\r\n]/.test(body.subject))
    throw errors.validation('The subject must be one line', [
      { path: 'subject', message: 'must not contain CR or LF' },
    ]);
  assertMustacheParses(body.subject, 'subject');
  if (body.html !== undefined) assertMustacheParses(body.html, 'html');
  if (body.text !== undefined) assertMustacheParses(body.text, 'text');
  const content: TemplateContent = { name: body.name ?? key, subject: body.subject };
  if (body.html !== undefined) content.html = body.html;
  if (body.text !== undefined) content.text = body.text;
  if (body.mjml !== undefined) {
    assertMustacheParses(body.mjml, 'mjml');
    content.mjml = body.mjml;
    content.compiledHtml = await compileMjml(body.mjml);
    assertMustacheParses(content.compiledHtml, 'mjml');
  }
  return content;
}
