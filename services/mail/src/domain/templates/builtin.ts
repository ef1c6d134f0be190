import type { MailContent } from '../mail/render';
import { CONSOLE_HTML } from './console-html.generated';
import { CONSOLE_MJML } from './console-mjml';

/**
 * Templates shipped in code, used when neither the project nor the platform stored one under the
 * name. `system` ones are what the platform's own mails (verification, password reset, the
 * console's invitations and password resets) use by default; `legacy` ones are the embedded
 * templates older projects relied on. Both can be overridden globally
 * (PUT /api/admin/mail/templates/:key); all but the console's also per project.
 */
export interface BuiltinTemplate extends MailContent {
  key: string;
  kind: 'system' | 'legacy';
  /** Authored in MJML: `html` is what it compiles to, generated ahead of time (console-mjml.ts). */
  mjml?: string;
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
    key: 'console-invitation',
    kind: 'system',
    subject: 'You are invited to {{projectName}}',
    mjml: CONSOLE_MJML['console-invitation'],
    html: CONSOLE_HTML['console-invitation'],
    text:
      'You have been invited to the project {{projectName}} as {{role}}.\n\n' +
      'Accept the invitation: {{link}}\n\n' +
      'Without a console account for {{email}} yet, you choose its password when you accept.\n' +
      'The invitation can be used once and expires after a few days. If you did not expect it, ' +
      'you can ignore this email.\n',
  },
  {
    key: 'console-password-reset',
    kind: 'system',
    subject: 'Reset your console password',
    mjml: CONSOLE_MJML['console-password-reset'],
    html: CONSOLE_HTML['console-password-reset'],
    text:
      'Someone asked to reset the password of the console account {{email}}.\n\n' +
      'Choose a new password: {{link}}\n\n' +
      'The link can be used once and expires in an hour. If you did not ask for a password ' +
      'reset, you can ignore this email: your password stays as it is.\n',
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

/** The keys of the platform's own mails (verification, password reset, the console's). */
export const SYSTEM_TEMPLATE_KEYS: ReadonlySet<string> = new Set(
  BUILTIN_TEMPLATES.filter((t) => t.kind === 'system').map((t) => t.key),
);

/** The console's mails: global templates only (a project cannot override the platform's links). */
export const CONSOLE_TEMPLATE_KEYS = {
  invitation: 'console-invitation',
  passwordReset: 'console-password-reset',
} as const;

export function builtinTemplate(key: string): BuiltinTemplate | undefined {
  return BUILTIN_TEMPLATES.find((t) => t.key === key);
}
