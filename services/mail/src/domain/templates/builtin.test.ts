import { renderMail } from '../mail/render';
import { sanitizeVariables } from '../mail/sanitize-variables';
import { consoleLink } from '../mail/send-console-mail';
import { builtinTemplate, SYSTEM_TEMPLATE_KEYS } from './builtin';
import { compileMjml } from './compile';
import { CONSOLE_HTML } from './console-html.generated';
import { CONSOLE_MJML } from './console-mjml';

const CONSOLE = 'https://baas.example.com/console/';
const token = 'tok_A-b9';
const escapedInHtml = (s: string) => s.replace(/\//g, '&#x2F;').replace(/=/g, '&#x3D;');

function render(key: string, variables: Record<string, unknown>) {
  const t = builtinTemplate(key);
  if (!t) throw new Error(`no built-in ${key}`);
  return renderMail(t, sanitizeVariables(variables));
}

describe('the console’s built-in mail templates', () => {
  it('are system templates (reserved from /api/mail/send) authored in MJML, with a text part', () => {
    for (const key of ['console-invitation', 'console-password-reset'] as const) {
      expect(SYSTEM_TEMPLATE_KEYS.has(key)).toBe(true);
      expect(builtinTemplate(key)).toMatchObject({ kind: 'system', mjml: CONSOLE_MJML[key] });
      expect(builtinTemplate(key)?.text).toContain('{{link}}');
    }
  });

  it.each(Object.keys(CONSOLE_MJML) as (keyof typeof CONSOLE_MJML)[])(
    'ship the HTML their MJML compiles to (run node scripts/mail-builtin-html.mjs): %s',
    async (key) => {
      expect(CONSOLE_HTML[key]).toBe(await compileMjml(CONSOLE_MJML[key]));
      expect(builtinTemplate(key)?.html).toBe(CONSOLE_HTML[key]);
    },
  );

  it('render an invitation with the accept-invitation link, the project and the role', () => {
    const link = consoleLink(CONSOLE, 'accept-invitation', token);
    expect(link).toBe(`${CONSOLE}#/accept-invitation?token=${token}`);
    const m = render('console-invitation', {
      email: 'ann@example.com',
      projectName: 'Shop <backend>',
      role: 'developer',
      link,
      token,
    });
    expect(m.subject).toBe('You are invited to Shop <backend>');
    expect(m.text).toContain(`Accept the invitation: ${link}`);
    expect(m.text).toContain('You have been invited to the project Shop <backend> as developer.');
    // HTML: the name escaped; the link in the button and in full (mustache escapes / and =)
    expect(m.html).toContain('<strong>Shop &lt;backend&gt;</strong>');
    expect(m.html?.split(`href="${escapedInHtml(link)}"`).length).toBe(3);
    expect(m.html).toMatch(/^<!doctype html>/);
    // no web font is fetched from the mail
    expect(m.html).not.toContain('fonts.googleapis.com');
  });

  it('render a password reset with the reset-password link', () => {
    const link = consoleLink(CONSOLE, 'reset-password', token);
    const m = render('console-password-reset', { email: 'ann@example.com', link, token });
    expect(m.subject).toBe('Reset your console password');
    expect(m.text).toContain(`Choose a new password: ${link}`);
    expect(m.text).toContain('console account ann@example.com');
    expect(m.html).toContain(`href="${escapedInHtml(link)}"`);
  });

  it('a link that is not http(s) renders empty (a CONSOLE_URL is validated at boot anyway)', () => {
    const m = render('console-password-reset', {
      email: 'a@example.com',
      link: 'javascript:alert(1)',
      token,
    });
    expect(m.text).toContain('Choose a new password: \n');
    expect(m.html).not.toContain('javascript');
  });

  it('encode a token that is not URL-safe into the link', () => {
    expect(consoleLink(CONSOLE, 'reset-password', 'a+b/c=&d')).toBe(
      `${CONSOLE}#/reset-password?token=a%2Bb%2Fc%3D%26d`,
    );
  });
});
