import { Router } from 'express';
import { auditSource, jsonBody, parseInput } from '@baas/common';
import type { ConsoleDeps } from '../domain/console/deps';
import { consoleErrors } from '../domain/console/console-errors';
import { listConsoleAccounts } from '../domain/console/list-accounts';
import { createConsoleAccount } from '../domain/console/create-account';
import { updateConsoleAccount } from '../domain/console/update-account';
import { deleteConsoleAccount } from '../domain/console/delete-account';
import { revokeConsoleAccountSessions } from '../domain/console/revoke-account-sessions';
import { pageRequest } from '../domain/admin/admin-list';
import { accountListQuery, createAccountSchema, patchAccountSchema } from './console.schemas';
import { requirePlatformAdmin } from './console-access';

function accountIdParam(raw: string | undefined): string {
  if (!raw || !/^[a-f0-9]{24}$/.test(raw)) throw consoleErrors.accountNotFound();
  return raw;
}

/** `/api/admin/console/accounts*`: console accounts, for platform admins only. */
export function adminConsoleRoutes(deps: ConsoleDeps): Router {
  const r = Router();
  r.use((req, _res, next) => {
    requirePlatformAdmin(req);
    next();
  });
  r.use(jsonBody('16kb'));
  r.get('/accounts', async (req, res) => {
    const query = parseInput(accountListQuery, req.query, 'Invalid query parameter');
    const page = await listConsoleAccounts(deps, { ...pageRequest(query), search: query.search });
    res.json({ success: true, data: page, message: 'Console accounts' });
  });
  r.post('/accounts', async (req, res) => {
    const input = parseInput(createAccountSchema, req.body);
    const data = await createConsoleAccount(deps, input, auditSource(req));
    res.status(201).json({ success: true, data, message: 'Console account created' });
  });
  r.patch('/accounts/:accountId', async (req, res) => {
    const id = accountIdParam(req.params.accountId);
    const input = parseInput(patchAccountSchema, req.body);
    res.json({
      success: true,
      data: await updateConsoleAccount(deps, id, input),
      message: 'Console account updated',
    });
  });
  r.delete('/accounts/:accountId', async (req, res) => {
    const id = accountIdParam(req.params.accountId);
    await deleteConsoleAccount(deps, id, auditSource(req));
    res.json({ success: true, data: { id }, message: 'Console account deleted' });
  });
  r.post('/accounts/:accountId/sessions/revoke', async (req, res) => {
    const id = accountIdParam(req.params.accountId);
    const data = await revokeConsoleAccountSessions(deps, id);
    res.json({ success: true, data, message: 'Sessions revoked' });
  });
  return r;
}
