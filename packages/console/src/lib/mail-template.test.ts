import {
  formFromTemplate,
  isDirty,
  keyProblem,
  newTemplateForm,
  parseVariables,
  previewBody,
  saveBody,
  templateVariables,
  withSampleVariables,
  type TemplateParts,
} from './mail-template';

const stored: TemplateParts = {
  key: 'welcome',
  name: 'welcome',
  subject: 'Hi {{name}}',
  html: null,
  text: 'Hi {{name}}',
  mjml: '<mjml><mj-body></mj-body></mjml>',
};

describe('the mail template form', () => {
  it('reads a stored template: MJML when it has some, HTML otherwise; a name equal to the key is left blank', () => {
    expect(formFromTemplate(stored)).toEqual({
      key: 'welcome',
      name: '',
      subject: 'Hi {{name}}',
      format: 'mjml',
      body: '<mjml><mj-body></mj-body></mjml>',
      text: 'Hi {{name}}',
    });
    const html = formFromTemplate({
      ...stored,
      name: 'Welcome mail',
      mjml: null,
      html: '<p>x</p>',
      text: null,
    });
    expect(html).toMatchObject({ name: 'Welcome mail', format: 'html', body: '<p>x</p>', text: '' });
    expect(formFromTemplate({ ...stored, mjml: null, html: null }).format).toBe('mjml');
  });

  it('saves only the parts that are there, the body under its format', () => {
    const f = newTemplateForm();
    expect(saveBody({ ...f, name: '  ', text: ' ' })).toEqual({ subject: f.subject, mjml: f.body });
    expect(saveBody({ ...f, name: 'Welcome ', format: 'html', body: '<p>x</p>', text: 'x' })).toEqual({
      name: 'Welcome',
      subject: f.subject,
      html: '<p>x</p>',
      text: 'x',
    });
    expect(saveBody({ ...f, body: '', text: 'only text' })).toEqual({
      subject: f.subject,
      text: 'only text',
    });
  });

  it('previews without the name, with the sample variables', () => {
    const f = { ...newTemplateForm(), name: 'Welcome' };
    expect(previewBody(f, { name: 'Ada' })).toEqual({
      subject: f.subject,
      mjml: f.body,
      variables: { name: 'Ada' },
    });
  });

  it('tells an edited form from the saved template', () => {
    const f = formFromTemplate(stored);
    expect(isDirty(f, stored)).toBe(false);
    expect(isDirty({ ...f, subject: 'Other' }, stored)).toBe(true);
    expect(isDirty(f, undefined)).toBe(true);
  });

  it('checks keys as the mail service does', () => {
    expect(keyProblem('welcome.v2_a-b')).toBeUndefined();
    expect(keyProblem('')).toBe('A key is required.');
    for (const bad of ['-x', 'a b', 'a/b', 'x'.repeat(65)])
      expect(keyProblem(bad)).toMatch(/Letters, digits/);
  });
});

describe('sample variables', () => {
  it('finds the variables a template uses, not those of section items, comments or partials', () => {
    expect(
      templateVariables(
        'Hi {{ name }} {{{raw}}} {{& amp}} {{user.email}} {{name}}',
        '{{#items}}{{title}}{{/items}}{{^empty}}none{{/empty}}{{! note }}{{> partial}}{{.}} {{after}}',
      ),
    ).toEqual(['name', 'raw', 'amp', 'user.email', 'items', 'empty', 'after']);
  });

  it('adds what is missing, nested for dotted names, and keeps what is there', () => {
    const current = { name: 'Ada', user: { id: 1 }, flat: 'x' };
    const out = withSampleVariables(current, ['name', 'link', 'user.email', 'flat.deep']);
    expect(out).toEqual({ name: 'Ada', link: '[link]', user: { id: 1, email: '[user.email]' }, flat: 'x' });
    expect(current).toEqual({ name: 'Ada', user: { id: 1 }, flat: 'x' }); // not changed
  });

  it('parses the sample variables as a JSON object', () => {
    expect(parseVariables('')).toEqual({ ok: true, value: {} });
    expect(parseVariables('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseVariables('[1]')).toMatchObject({
      ok: false,
      message: expect.stringContaining('JSON object'),
    });
    expect(parseVariables('{"a":')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Not valid JSON/),
    });
  });
});
