import { Router } from 'express';
import { errors, jsonBody, parseInput, tenantContext } from '@baas/common';
import type { MailDeps } from '../domain/deps';
import { sendApiMail, sendMailSchema } from '../domain/mail/send-api-mail';

/** POST /api/mail/send (secret key only). */
export function sendRoutes(deps: MailDeps): Router {
  const r = Router();
  r.post(
    '/send',
    (req, _res, next) => {
      // Key type is checked before the body is read: a publishable key learns nothing more.
      const ctx = tenantContext(req);
      if (ctx.keyType !== 'secret') return next(errors.secretKeyRequired());
      next();
    },
    jsonBody('600kb'),
    async (req, res) => {
      const ctx = tenantContext(req);
      const input = parseInput(sendMailSchema, req.body ?? {});
      const data = await sendApiMail(
        deps,
        {
          projectId: ctx.projectId,
          requestId: ctx.requestId,
          monthlyLimit: ctx.settings.limits?.mailMonthly,
        },
        input,
      );
      res.json({ success: true, data, message: 'Email sent' });
    },
  );
  return r;
}
