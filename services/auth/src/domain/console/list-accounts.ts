import type { AdminPage } from '@baas/common';
import type { ConsoleDeps } from './deps';
import { accountView, type AccountView, type ConsoleMembershipRecord } from './account';
import { toPage, type PageRequest } from '../admin/admin-list';
import { normalizeEmail } from '../users/user';

/** GET /api/admin/console/accounts: newest first, by cursor; `search` matches part of the email. */
export async function listConsoleAccounts(
  deps: ConsoleDeps,
  req: PageRequest & { search?: string },
): Promise<AdminPage<AccountView>> {
  const emailContains = req.search === undefined ? undefined : normalizeEmail(req.search);
  const rows = await deps.accounts.list({
    limit: req.limit + 1,
    before: req.before,
    ...(emailContains ? { emailContains } : {}),
  });
  const shown = rows.slice(0, req.limit);
  const byAccount = new Map<string, ConsoleMembershipRecord[]>();
  for (const m of shown.length ? await deps.members.ofAccounts(shown.map((a) => a.id)) : [])
    byAccount.set(m.accountId, [...(byAccount.get(m.accountId) ?? []), m]);
  return toPage(rows, req, (a) => accountView(a, byAccount.get(a.id) ?? []));
}
