import { prepareTemplate } from './compile';

const MJML_OK =
  '<mjml><mj-body><mj-section><mj-column><mj-text>Hi {{name}}</mj-text><mj-button href="{{url}}">Go</mj-button></mj-column></mj-section></mj-body></mjml>';

describe('prepareTemplate', () => {
  it('compiles MJML at save time and keeps the placeholders', async () => {
    const t = await prepareTemplate('k', { subject: 'S', mjml: MJML_OK });
    expect(t.compiledHtml).toContain('Hi {{name}}');
    expect(t.compiledHtml).toContain('href="{{url}}"');
    expect(t.name).toBe('k');
  });

  it("refuses MJML that does not compile with the compiler's message", async () => {
    await expect(
      prepareTemplate('k', {
        subject: 'S',
        mjml: '<mjml><mj-body><mj-column><mj-texxt>x</mj-texxt></mj-column></mj-body></mjml>',
      }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_MJML',
      message: expect.stringContaining("mj-texxt doesn't exist"),
    });
    await expect(prepareTemplate('k', { subject: 'S', mjml: 'not mjml' })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_MJML',
    });
  });

  it('never reads files through mj-include', async () => {
    const t = await prepareTemplate('k', {
      subject: 'S',
      mjml: '<mjml><mj-body><mj-include path="/etc/passwd" /><mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section></mj-body></mjml>',
    });
    expect(t.compiledHtml).not.toContain('root:');
  });

  it('requires a body, refuses html with mjml, a multi-line subject and unparsable mustache', async () => {
    await expect(prepareTemplate('k', { subject: 'S' })).rejects.toMatchObject({ status: 400 });
    await expect(
      prepareTemplate('k', { subject: 'S', html: '<p>x</p>', mjml: MJML_OK }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(prepareTemplate('k', { subject: 'a\r\nBcc: x@y.z', text: 'x' })).rejects.toMatchObject({
      status: 400,
    });
    await expect(prepareTemplate('k', { subject: 'S', html: '{{#open}}' })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_TEMPLATE',
    });
  });
});
