/**
 * The mail template editor's model: the form, the bodies the API takes (a save, a preview), and
 * the sample variables a template uses. Pure functions, tested beside this file.
 */

/** How the HTML part is written: MJML (compiled by the server) or HTML as is. */
export type BodyFormat = 'mjml' | 'html';

export interface TemplateForm {
  key: string;
  name: string;
  subject: string;
  format: BodyFormat;
  /** The MJML or the HTML, as `format` says; empty: no HTML part. */
  body: string;
  /** The plain-text part; empty: none. */
  text: string;
}

/** A template as the admin API answers it (the parts the editor reads). */
export interface TemplateParts {
  key: string;
  name: string;
  subject: string;
  html: string | null;
  text: string | null;
  mjml: string | null;
}

/** Same rule as the mail service: letters, digits, `.`, `_`, `-`, at most 64, not starting with a sign. */
export const TEMPLATE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const STARTER_MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text font-size="18px">Hello {{name}}</mj-text>
        <mj-button href="{{link}}">Open</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

export function newTemplateForm(): TemplateForm {
  return { key: '', name: '', subject: 'Hello {{name}}', format: 'mjml', body: STARTER_MJML, text: '' };
}

export function formFromTemplate(t: TemplateParts): TemplateForm {
  const format: BodyFormat = t.mjml !== null || t.html === null ? 'mjml' : 'html';
  return {
    key: t.key,
    name: t.name === t.key ? '' : t.name,
    subject: t.subject,
    format,
    body: (format === 'mjml' ? t.mjml : t.html) ?? '',
    text: t.text ?? '',
  };
}

/** What `PUT .../mail/templates/{key}` takes: the name defaults to the key, empty parts are left out. */
export function saveBody(f: TemplateForm): {
  name?: string;
  subject: string;
  html?: string;
  text?: string;
  mjml?: string;
} {
  return {
    ...(f.name.trim() ? { name: f.name.trim() } : {}),
    subject: f.subject,
    ...(f.body.trim() ? { [f.format]: f.body } : {}),
    ...(f.text.trim() ? { text: f.text } : {}),
  };
}

/** What `POST .../mail/preview` takes: the template as saved, and the sample variables. */
export function previewBody(f: TemplateForm, variables: Record<string, unknown>) {
  const body = saveBody(f);
  delete body.name;
  return { ...body, variables };
}

/** Whether the form differs from the saved template (a test send sends the saved one). */
export function isDirty(f: TemplateForm, saved: TemplateParts | undefined): boolean {
  if (!saved) return true;
  return JSON.stringify(saveBody(f)) !== JSON.stringify(saveBody(formFromTemplate(saved)));
}

export function keyProblem(key: string): string | undefined {
  if (key === '') return 'A key is required.';
  return TEMPLATE_KEY.test(key)
    ? undefined
    : 'Letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit.';
}

/**
 * The variables a template uses, in order of appearance: `{{name}}`, `{{{name}}}`, `{{& name}}`
 * and sections (`{{#items}}`, `{{^items}}`), as dotted paths; names inside a section are the
 * section's items' and are not listed. Comments, partials and `{{.}}` are skipped.
 */
export function templateVariables(...parts: readonly string[]): string[] {
  const found: string[] = [];
  const tag = /\{\{(\{?)\s*([#^/!>&=]?)\s*([^}]*?)\s*\}?\}\}/g;
  for (const part of parts) {
    let depth = 0;
    for (const m of part.matchAll(tag)) {
      const sigil = m[2] ?? '';
      const name = m[3] ?? '';
      if (sigil === '/') {
        depth = Math.max(0, depth - 1);
        continue;
      }
      if (sigil === '!' || sigil === '>' || sigil === '=' || name === '' || name === '.') continue;
      if (depth === 0 && !found.includes(name)) found.push(name);
      if (sigil === '#' || sigil === '^') depth++;
    }
  }
  return found;
}

/**
 * Sample values for the variables a template uses that `current` lacks: each variable's own name
 * in brackets (`[name]`), so the preview shows where it lands; dotted paths become nested objects.
 * `current` is not changed.
 */
export function withSampleVariables(
  current: Record<string, unknown>,
  names: readonly string[],
): Record<string, unknown> {
  const out = structuredClone(current);
  for (const name of names) {
    const path = name.split('.');
    let at: Record<string, unknown> = out;
    for (const [i, segment] of path.entries()) {
      if (i === path.length - 1) {
        if (!(segment in at)) at[segment] = `[${name}]`;
        break;
      }
      const next = at[segment];
      if (typeof next === 'object' && next !== null && !Array.isArray(next))
        at = next as Record<string, unknown>;
      else if (next === undefined) {
        const made: Record<string, unknown> = {};
        at[segment] = made;
        at = made;
      } else break; // a value is already there: leave it
    }
  }
  return out;
}

/** Parses the sample variables: a JSON object, or why not. */
export function parseVariables(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, message: 'The sample variables are a JSON object: { "name": "Ada", … }' };
  return { ok: true, value: value as Record<string, unknown> };
}
