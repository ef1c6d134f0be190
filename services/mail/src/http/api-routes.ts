import { z } from 'zod';
import { adminListRoute, defineRoutes, envelope, hexId, type ApiRoute } from '@baas/common';
import { sendMailSchema } from '../domain/mail/send-api-mail';
import { TEMPLATE_KEY, templateBodySchema } from '../domain/templates/template';
import { previewBodySchema } from '../domain/templates/preview-template';
import { testSendSchema } from '../domain/mail/send-test-mail';

/*
 * The mail service's routes as clients reach them through the gateway, from the schemas the
 * handlers validate with (the OpenAPI document is generated from this registry: `npm run openapi`).
 */

const iso = z.string().describe('ISO-8601 date-time');
const projectIdParams = z.object({ projectId: hexId.describe('The project id (24 hex).') });
const keyParam = { key: z.string().regex(TEMPLATE_KEY).describe('The template key.') };
const templateView = z.object({
  id: hexId,
  key: z.string(),
  name: z.string(),
  scope: z.enum(['project', 'global']),
  projectId: hexId.nullable(),
  subject: z.string(),
  html: z.string().nullable(),
  text: z.string().nullable(),
  mjml: z.string().nullable(),
  compiledHtml: z.string().nullable(),
  createdAt: iso,
  updatedAt: iso,
});
const templateExample = {
  subject: 'Welcome, {{name}}',
  html: '<p>Hello {{name}}</p>',
  text: 'Hello {{name}}',
};

/** The four template routes, for project overrides or for global templates. */
function templateRoutes(scope: 'project' | 'global'): ApiRoute[] {
  const base =
    scope === 'project' ? '/api/admin/projects/{projectId}/mail/templates' : '/api/admin/mail/templates';
  const params = scope === 'project' ? projectIdParams : z.object({});
  const Name = scope === 'project' ? 'ProjectTemplate' : 'GlobalTemplate';
  const what = scope === 'project' ? "a project's template override" : 'a global template';
  const notFound = scope === 'project' ? ['PROJECT_NOT_FOUND', 'TEMPLATE_NOT_FOUND'] : ['TEMPLATE_NOT_FOUND'];
  const common = { tag: 'Admin: mail', service: 'mail', security: 'admin' } as const;
  return [
    {
      ...common,
      method: 'get',
      path: base,
      operationId: `list${Name}s`,
      summary: scope === 'project' ? "List a project's template overrides" : 'List global templates',
      ...(scope === 'project' ? { params } : {}),
      responses: { 200: { description: 'The templates.', schema: z.array(templateView) } },
      ...(scope === 'project' ? { errors: { 404: ['PROJECT_NOT_FOUND'] } } : {}),
    },
    {
      ...common,
      method: 'get',
      path: `${base}/{key}`,
      operationId: `get${Name}`,
      summary: `Get ${what}`,
      params: params.extend(keyParam),
      responses: { 200: { description: 'The template.', schema: templateView } },
      errors: { 400: ['VALIDATION_FAILED'], 404: notFound },
    },
    {
      ...common,
      method: 'put',
      path: `${base}/{key}`,
      operationId: `put${Name}`,
      summary: `Create or replace ${what}`,
      description: 'Mustache variables; `mjml` is compiled to HTML when saved.',
      params: params.extend(keyParam),
      body: { schema: templateBodySchema, example: templateExample },
      responses: {
        200: { description: 'Replaced.', schema: templateView },
        201: { description: 'Created.', schema: templateView },
      },
      errors: {
        400: ['INVALID_TEMPLATE', 'INVALID_MJML', 'TEMPLATE_TOO_COMPLEX', 'EMPTY_BODY'],
        ...(scope === 'project' ? { 404: ['PROJECT_NOT_FOUND'] } : {}),
      },
    },
    {
      ...common,
      method: 'delete',
      path: `${base}/{key}`,
      operationId: `delete${Name}`,
      summary: `Delete ${what}`,
      params: params.extend(keyParam),
      responses: {
        200: { description: 'Deleted.', schema: envelope(z.object({ id: hexId, key: z.string() })) },
      },
      errors: { 400: ['VALIDATION_FAILED'], 404: notFound },
    },
  ];
}

const sendAnswer = envelope(
  z.object({
    id: z.string(),
    provider: z.string(),
    monthlyUsage: z.number().int(),
    monthlyLimit: z.number().int(),
  }),
);
const sendErrors = {
  400: ['RECIPIENT_REJECTED', 'EMPTY_SUBJECT', 'EMPTY_BODY', 'TEMPLATE_TOO_COMPLEX'],
  429: ['MAIL_LIMIT_EXCEEDED'],
  502: ['MAIL_DELIVERY_FAILED'],
  503: ['MAIL_DELIVERY_FAILED'],
};
const messageView = z.object({
  id: hexId,
  to: z.string(),
  templateKey: z.string().nullable(),
  system: z.boolean().describe('A platform mail (verification, password reset) rather than an API send.'),
  provider: z.string(),
  status: z.enum(['sending', 'sent', 'failed']),
  attempts: z.number().int().nullable(),
  error: z.string().nullable().describe('Why the last attempt failed (failed messages).'),
  createdAt: iso,
});

const exampleMessage = {
  id: '665f1c2ab4d3e2f1a0b9c8f3',
  to: 'ada@example.com',
  templateKey: 'welcome',
  system: false,
  provider: 'smtp',
  status: 'sent',
  attempts: 1,
  error: null,
  createdAt: '2025-01-05T10:00:00.000Z',
};

/** POST .../mail/preview: a project's (templates or overrides) or the global templates' one. */
function previewRoute(scope: 'project' | 'global'): ApiRoute {
  return {
    method: 'post',
    path: scope === 'project' ? '/api/admin/projects/{projectId}/mail/preview' : '/api/admin/mail/preview',
    operationId: scope === 'project' ? 'previewMailTemplate' : 'previewGlobalMailTemplate',
    summary:
      scope === 'project'
        ? 'Render a template without sending it'
        : 'Render a global template without sending it',
    description:
      'The template as `PUT .../mail/templates/{key}` takes it (`mjml` is compiled), rendered with `variables` as a send would; nothing is saved or sent.',
    tag: 'Admin: mail',
    service: 'mail',
    security: 'admin',
    ...(scope === 'project' ? { params: projectIdParams } : {}),
    body: {
      schema: previewBodySchema,
      example: {
        subject: 'Welcome, {{name}}',
        mjml: '<mjml><mj-body><mj-section><mj-column><mj-text>Hello {{name}}</mj-text></mj-column></mj-section></mj-body></mjml>',
        variables: { name: 'Ada' },
      },
    },
    responses: {
      200: {
        description: 'The rendered mail.',
        schema: envelope(
          z.object({ subject: z.string(), html: z.string().nullable(), text: z.string().nullable() }),
        ),
      },
    },
    errors: {
      400: ['INVALID_TEMPLATE', 'INVALID_MJML', 'TEMPLATE_TOO_COMPLEX', 'EMPTY_SUBJECT', 'EMPTY_BODY'],
      ...(scope === 'project' ? { 404: ['PROJECT_NOT_FOUND'] } : {}),
    },
  };
}

/** The sent-mail log, previews and test sends of one project (the console's mail page). */
const adminMailRoutes: ApiRoute[] = [
  adminListRoute({
    path: '/api/admin/projects/{projectId}/mail/messages',
    operationId: 'listMailMessages',
    summary: "A project's sent-mail log",
    description:
      'Every message the project sent (API sends, test sends and platform mails), newest first, by cursor, with its status. Bodies are not kept.',
    tag: 'Admin: mail',
    service: 'mail',
    params: projectIdParams,
    item: messageView,
    example: { item: exampleMessage, message: 'Sent mail' },
  }),
  previewRoute('project'),
  {
    method: 'post',
    path: '/api/admin/projects/{projectId}/mail/templates/{key}/test',
    operationId: 'sendTestMail',
    summary: "Send one of a project's templates as a test",
    description:
      "The project's own template (not a global one), rendered with `variables` and sent to `to`; counts against the project's monthly limit like any send, and is recorded in the audit log.",
    tag: 'Admin: mail',
    service: 'mail',
    security: 'admin',
    params: projectIdParams.extend(keyParam),
    body: { schema: testSendSchema, example: { to: 'ada@example.com', variables: { name: 'Ada' } } },
    responses: { 200: { description: 'Accepted by the SMTP server.', schema: sendAnswer } },
    errors: { ...sendErrors, 404: ['PROJECT_NOT_FOUND', 'TEMPLATE_NOT_FOUND'] },
  },
];

export const mailApiRoutes = defineRoutes([
  {
    method: 'post',
    path: '/api/mail/send',
    operationId: 'sendMail',
    summary: 'Send a mail',
    description:
      '`to` is one address. Either direct content (`subject` with `html` and/or `text`) or a template (`templateId` or `templateName`) with `variables`. Sent synchronously.',
    tag: 'Mail',
    service: 'mail',
    security: 'secretKey',
    body: {
      schema: sendMailSchema,
      example: { to: 'ada@example.com', templateName: 'welcome', variables: { name: 'Ada' } },
    },
    responses: { 200: { description: 'Accepted by the SMTP server.', schema: sendAnswer } },
    errors: {
      ...sendErrors,
      400: [
        'MIXED_MAIL_MODES',
        'TEMPLATE_ID_AND_NAME',
        'INVALID_TEMPLATE_ID',
        'SYSTEM_TEMPLATE_RESERVED',
        ...sendErrors[400],
      ],
      404: ['TEMPLATE_NOT_FOUND'],
    },
  },
  ...templateRoutes('project'),
  ...adminMailRoutes,
  ...templateRoutes('global'),
  previewRoute('global'),
  {
    ...adminListRoute({
      path: '/api/admin/mail/messages',
      operationId: 'listPlatformMailMessages',
      summary: "The platform's sent-mail log",
      description:
        "The platform's own mails that belong to no project (a console account's password reset), newest first, by cursor, with their status. Bodies are not kept.",
      tag: 'Admin: mail',
      service: 'mail',
      item: messageView,
      example: {
        item: { ...exampleMessage, templateKey: 'console-password-reset', system: true },
        message: 'Sent mail',
      },
    }),
    errors: {},
  },
  {
    method: 'get',
    path: '/api/admin/projects/{projectId}/mail/usage',
    operationId: 'getMailUsage',
    summary: "A project's mails this month against its monthly limit",
    tag: 'Admin: usage',
    service: 'mail',
    security: 'admin',
    params: projectIdParams,
    responses: {
      200: {
        description: 'The calendar month (UTC), mails sent through the API in it, and the limit.',
        schema: z.object({
          month: z.string(),
          monthlyUsage: z.number().int(),
          monthlyLimit: z.number().int(),
        }),
        example: { month: '2025-01', monthlyUsage: 12, monthlyLimit: 1000 },
      },
    },
    errors: { 404: ['PROJECT_NOT_FOUND'] },
  },
]);
