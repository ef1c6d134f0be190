/**
 * The console's mails (invitation, password reset) as authored, in MJML. The HTML they compile
 * to is generated ahead of time into console-html.generated.ts (`node scripts/mail-builtin-html.mjs`
 * after a build; builtin.test.ts holds it to these sources), so a mail service that only sends
 * never loads the MJML compiler. Fonts are the mail client's own (no web font is fetched), and the
 * link is also shown in full under the button for clients that do not render buttons.
 */
const consoleMjml = (body: string, button: string, footer: string) =>
  `<mjml>
  <mj-head>
    <mj-title>BaaS console</mj-title>
    <mj-attributes>
      <mj-all font-family="Helvetica, Arial, sans-serif" />
      <mj-text font-size="15px" line-height="22px" color="#1f2933" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f4f5f7">
    <mj-section background-color="#ffffff" padding="24px">
      <mj-column>
        <mj-text font-size="13px" color="#6b7280">BaaS console</mj-text>
        ${body}
        <mj-button href="{{link}}" background-color="#2563eb" color="#ffffff" align="left">${button}</mj-button>
        <mj-text font-size="13px" color="#6b7280">Or open this link: <a href="{{link}}">{{link}}</a></mj-text>
        <mj-text font-size="13px" color="#6b7280">${footer}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

export const CONSOLE_MJML = {
  'console-invitation': consoleMjml(
    '<mj-text>You have been invited to the project <strong>{{projectName}}</strong> as ' +
      '<strong>{{role}}</strong>.</mj-text>' +
      '<mj-text>Accept the invitation to open the project in the console. Without a console ' +
      'account for {{email}} yet, you choose its password when you accept.</mj-text>',
    'Accept the invitation',
    'The invitation can be used once and expires after a few days. If you did not expect it, ' +
      'you can ignore this email.',
  ),
  'console-password-reset': consoleMjml(
    '<mj-text>Someone asked to reset the password of the console account {{email}}.</mj-text>',
    'Choose a new password',
    'The link can be used once and expires in an hour. If you did not ask for a password ' +
      'reset, you can ignore this email: your password stays as it is.',
  ),
} as const;

export type ConsoleTemplateKey = keyof typeof CONSOLE_MJML;
