import { renderMail } from './render';
import { sanitizeVariables } from './sanitize-variables';

const view = (v: Record<string, unknown>) => sanitizeVariables(v);

describe('renderMail', () => {
  it('escapes {{x}} and leaves {{{x}}} raw in HTML, resolves nested paths', () => {
    const r = renderMail(
      { subject: 'Hi {{user.name}}', html: '<p>{{x}}|{{{x}}}|{{user.name}}</p>' },
      view({ x: '<b>&', user: { name: 'Ann' } }),
    );
    expect(r.html).toBe('<p>&lt;b&gt;&amp;|<b>&|Ann</p>');
    expect(r.subject).toBe('Hi Ann');
  });

  it('does not HTML-escape the subject or the text part', () => {
    const r = renderMail({ subject: '{{a}}', text: 'Dear {{a}}' }, view({ a: 'Tom & Jerry <x>' }));
    expect(r.subject).toBe('Tom & Jerry <x>');
    expect(r.text).toBe('Dear Tom & Jerry <x>');
  });

  it('strips CR/LF that variables bring into the subject', () => {
    const r = renderMail({ subject: 'Hello {{n}}', text: 'x' }, view({ n: 'a\r\nBcc: victim@example.com' }));
    expect(r.subject).not.toMatch(/[\r\n]/);
    expect(r.subject).toBe('Hello a Bcc: victim@example.com');
  });

  it('refuses an empty subject or body after substitution', () => {
    expect(() => renderMail({ subject: '{{missing}}', text: 'x' }, view({}))).toThrow(
      expect.objectContaining({ status: 400, code: 'EMPTY_SUBJECT' }),
    );
    expect(() => renderMail({ subject: 's', html: '<p>{{missing}}</p>' }, view({}))).toThrow(
      expect.objectContaining({ code: 'EMPTY_BODY' }),
    );
    expect(() => renderMail({ subject: 's', text: '  {{missing}} ' }, view({}))).toThrow(
      expect.objectContaining({ code: 'EMPTY_BODY' }),
    );
  });

  it('drops an empty part but keeps the other', () => {
    const r = renderMail({ subject: 's', html: '<p>{{h}}</p>', text: '{{t}}' }, view({ t: 'text only' }));
    expect(r.html).toBeUndefined();
    expect(r.text).toBe('text only');
  });

  it('renders partials as nothing and finds nothing on the prototype', () => {
    const r = renderMail({ subject: 's', text: 'a{{> secret}}b{{constructor}}c' }, view({}));
    expect(r.text).toBe('abc');
  });

  it('refuses a template that does not parse with 400', () => {
    expect(() => renderMail({ subject: 's', text: '{{#a}}x' }, view({}))).toThrow(
      expect.objectContaining({ status: 400, code: 'INVALID_TEMPLATE' }),
    );
  });
});
