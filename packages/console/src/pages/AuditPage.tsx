import { useState } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import type { AuditAction } from '../api/types';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField } from '../components/Field';
import { CursorPager, TableHead, useCursorPaging } from '../components/Paging';
import { formatAuditActor, formatDate } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/** Every action the log records, by what it says (a Record: a new action fails to compile here). */
const ACTIONS: Record<AuditAction, string> = {
  'project.created': 'project created',
  'project.updated': 'project updated',
  'project.deleted': 'project deleted',
  'project.key_rotated': 'key rotated',
  'collection.registered': 'collection registered',
  'collection.rls_disabled': 'row-level security turned off',
  'collection.deleted': 'collection deleted',
  'user.deleted': 'user deleted',
  'signing_key.rotated': 'signing key rotated',
  'document.created': 'document created',
  'document.updated': 'document updated',
  'document.trashed': 'document trashed',
  'document.restored': 'document restored',
  'file.uploaded': 'file uploaded',
  'file.deleted': 'file deleted',
  'mail.test_sent': 'test mail sent',
  'member.invited': 'member invited',
  'member.role_changed': 'member role changed',
  'member.removed': 'member removed',
  'console_account.created': 'console account created',
  'console_account.deleted': 'console account deleted',
  'user.logged_in': 'user signed in',
  'user.login_failed': 'sign-in failed',
  'user.refresh_token_reused': 'refresh token reused (session revoked)',
  'user.password_changed': 'user password changed',
  'user.password_reset': 'user password reset',
};
const ACTION_OPTIONS = [
  ['', 'All actions'] as const,
  ...Object.entries(ACTIONS).map(([value, text]) => [value, `${text} (${value})`] as const),
];

/** The project's audit log, newest first, by cursor; filtered by action. */
export function AuditPage({ project }: ProjectPageProps) {
  usePageTitle(`Audit log · ${project.name}`);
  const api = useApi();
  const [action, setAction] = useState<AuditAction | ''>('');
  const paging = useCursorPaging();
  const { cursor } = paging;
  const page = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/audit', {
            params: {
              path: { projectId: project.id },
              query: { limit: '25', cursor, ...(action ? { action } : {}) },
            },
          }),
        )
      ).data,
    [api, project.id, action, cursor],
  );
  const items = page.data?.items ?? [];
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Audit log</h1>
      <p className="help">
        Every change made to {project.name} through the admin API (the console included), newest first.
      </p>
      <div className="toolbar">
        <SelectField
          label="Action"
          inline
          value={action}
          onChange={(e) => {
            setAction(e.target.value as AuditAction | '');
            paging.reset();
          }}
          options={ACTION_OPTIONS}
        />
      </div>
      <ErrorNotice error={page.error} />
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Audit log of {project.name}, newest first</caption>
          <TableHead columns={['When', 'Action', 'By', 'Target', 'Details']} />
          <tbody>
            {items.map((e) => (
              <tr key={e.id}>
                <td>{formatDate(e.at)}</td>
                <th scope="row">{ACTIONS[e.action] ?? e.action}</th>
                <td>
                  {formatAuditActor(e.actor)}
                  {e.clientIp && <div className="help mono">{e.clientIp}</div>}
                </td>
                <td>
                  {e.target.type} <span className="mono">{e.target.id}</span>
                </td>
                <td>
                  {e.details && Object.keys(e.details).length > 0 ? (
                    <details>
                      <summary>Show</summary>
                      <pre className="json-view">{JSON.stringify(e.details, null, 2)}</pre>
                    </details>
                  ) : (
                    <span className="muted">–</span>
                  )}
                  {e.requestId && <div className="help mono">request {e.requestId}</div>}
                </td>
              </tr>
            ))}
            {items.length === 0 && !page.loading && (
              <tr>
                <td colSpan={5} className="muted">
                  Nothing recorded{action ? ' for this action' : ''}.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <CursorPager paging={paging} nextCursor={page.data?.nextCursor} loading={page.loading} />
    </main>
  );
}
