import type { MailContent } from '../mail/render';

/**
 * Templates shipped in code, used when neither the project nor the platform stored one under the
 * name. `system` ones are what the platform's own mails (verification, password reset) use by
 * default; `legacy` ones are the embedded templates older projects relied on. Both can be
 * overridden globally (PUT /api/admin/mail/templates/:key) or per project.
 */
export interface BuiltinTemplate extends MailContent {
  key: string;
  kind: 'system' | 'legacy';
}

/** Without MAIL_LINK_BASE_URL there is no link: the link token is shown for the `{ token }` form. */
const tokenBlock =
  '{{^link}}<p>If the app asks for a token instead, use: <code>{{token}}</code></p>{{/link}}';
const tokenLine = '{{^link}}If the app asks for a token instead, use: {{token}}\n{{/link}}';

const codeBlock = (label: string) =>
  `<p>${label}</p>` +
  '<p style="font-size:24px;font-weight:bold;letter-spacing:4px">{{code}}</p>' +
  '<p>This code expires at {{expiresAt}}.</p>';

export const BUILTIN_TEMPLATES: readonly BuiltinTemplate[] = [
  {
    key: 'verify-email',
    kind: 'system',
    subject: 'Verify your email address',
    html:
      codeBlock('Use this code to verify your email address:') +
      '{{#link}}<p><a href="{{link}}">Verify my email address</a></p>{{/link}}' +
      tokenBlock +
      '<p>If you did not sign up, you can ignore this email.</p>',
    text:
      'Use this code to verify your email address: {{code}}\n' +
      'This code expires at {{expiresAt}}.\n' +
      '{{#link}}Or open {{link}}\n{{/link}}' +
      tokenLine +
      'If you did not sign up, you can ignore this email.\n',
  },
  {
    key: 'password-reset',
    kind: 'system',
    subject: 'Reset your password',
    html:
      codeBlock('Use this code to reset your password:') +
      '{{#link}}<p><a href="{{link}}">Reset my password</a></p>{{/link}}' +
      tokenBlock +
      '<p>If you did not ask for a password reset, you can ignore this email.</p>',
    text:
      'Use this code to reset your password: {{code}}\n' +
      'This code expires at {{expiresAt}}.\n' +
      '{{#link}}Or open {{link}}\n{{/link}}' +
      tokenLine +
      'If you did not ask for a password reset, you can ignore this email.\n',
  },
  {
    key: 'welcome',
    kind: 'legacy',
    subject: 'Welcome{{#name}}, {{name}}{{/name}}!',
    html:
      '<p>Hi{{#name}} {{name}}{{/name}},</p><p>Welcome aboard. We are glad to have you.</p>' +
      '{{#loginUrl}}<p><a href="{{loginUrl}}">Sign in</a></p>{{/loginUrl}}',
    text: 'Hi{{#name}} {{name}}{{/name}},\n\nWelcome aboard. We are glad to have you.\n{{#loginUrl}}\nSign in: {{loginUrl}}\n{{/loginUrl}}',
  },
  {
    key: 'notification',
    kind: 'legacy',
    subject: '{{title}}',
    html:
      '<h1>{{title}}</h1><p>{{message}}</p>' +
      '{{#actionUrl}}<p><a href="{{actionUrl}}">{{actionText}}{{^actionText}}Open{{/actionText}}</a></p>{{/actionUrl}}',
    text: '{{title}}\n\n{{message}}\n{{#actionUrl}}\n{{actionUrl}}\n{{/actionUrl}}',
  },
];

/** The keys of the platform's own mails (verification, password reset). */
export const SYSTEM_TEMPLATE_KEYS: ReadonlySet<string> = new Set(
  BUILTIN_TEMPLATES.filter((t) => t.kind === 'system').map((t) => t.key),
);

export function builtinTemplate(key: string): BuiltinTemplate | undefined {
  return BUILTIN_TEMPLATES.find((t) => t.key === key);
}
