import { previewBodySchema, previewTemplate } from './preview-template';

const MJML =
  '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{name}}</mj-text></mj-column></mj-section></mj-body></mjml>';

describe('previewTemplate', () => {
  it('compiles MJML and renders the variables into subject, HTML and text, as a send would', async () => {
    const out = await previewTemplate({
      subject: 'Welcome, {{name}}',
      mjml: MJML,
      text: 'Hi {{name}} <3',
      variables: { name: 'Ada <b>' },
    });
    expect(out.subject).toBe('Welcome, Ada <b>');
    expect(out.html).toContain('Hello Ada &lt;b&gt;');
    expect(out.html).toMatch(/^<!doctype html>/i);
    expect(out.text).toBe('Hi Ada <b> <3');
  });

  it("answers broken MJML and broken mustache with 400 and the compiler's or parser's message", async () => {
    await expect(
      previewTemplate({ subject: 'S', mjml: '<mjml><mj-body><mj-texxt>x</mj-texxt></mj-body></mjml>' }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_MJML',
      message: expect.stringContaining('mj-texxt'),
    });
    await expect(previewTemplate({ subject: 'S', html: '<p>{{#open}}</p>' })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_TEMPLATE',
      message: expect.stringContaining('Unclosed section'),
    });
  });

  it('an empty render is a 400, and the body schema refuses unknown fields', async () => {
    await expect(previewTemplate({ subject: '{{missing}}', text: 'x' })).rejects.toMatchObject({
      status: 400,
      code: 'EMPTY_SUBJECT',
    });
    expect(previewBodySchema.safeParse({ subject: 'S', text: 'x', name: 'n' }).success).toBe(false);
    expect(previewBodySchema.safeParse({ subject: 'S', text: 'x', variables: { a: 1 } }).success).toBe(true);
  });
});
