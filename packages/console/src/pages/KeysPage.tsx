import { useState } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import type { RotatedKeys } from '../api/types';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableHead } from '../components/Paging';
import { KeysReveal } from '../components/KeysReveal';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/use-action';
import { usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

type KeyType = 'publishable' | 'secret';

/** The project's two keys (by prefix) and their rotation; a new key is shown once. */
export function KeysPage({ project, reload, can }: ProjectPageProps) {
  usePageTitle(`API keys · ${project.name}`);
  const api = useApi();
  const [asked, setAsked] = useState<KeyType | undefined>();
  const { busy, error, run } = useAction();
  const [rotated, setRotated] = useState<RotatedKeys | undefined>();

  const rotate = async (type: KeyType) => {
    await run(async () => {
      const keys = await ok(
        api.POST('/api/admin/projects/{projectId}/keys/rotate', {
          params: { path: { projectId: project.id } },
          body: { type },
        }),
      );
      setRotated(keys);
    });
    setAsked(undefined);
  };

  const rows: Array<{ type: KeyType; title: string; use: string }> = [
    {
      type: 'publishable',
      title: 'Publishable key',
      use: 'pk_live_…: browsers and mobile apps; RLS applies.',
    },
    { type: 'secret', title: 'Secret key', use: 'sk_live_…: servers only; full access to the project.' },
  ];
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>API keys</h1>
      {!can.manage && <p className="help">Only the project&apos;s owners rotate its keys.</p>}
      <ErrorNotice error={error} />
      <table className="table">
        <caption className="visually-hidden">Keys of {project.name}</caption>
        <TableHead columns={['Key', 'Prefix', 'Created']} actions={can.manage} />
        <tbody>
          {rows.map((r) => (
            <tr key={r.type}>
              <th scope="row">
                {r.title}
                <div className="help">{r.use}</div>
              </th>
              <td className="mono">{project.keys[r.type].prefix}…</td>
              <td>{formatDate(project.keys[r.type].createdAt)}</td>
              {can.manage && (
                <td>
                  <button type="button" onClick={() => setAsked(r.type)}>
                    Rotate the {r.type} key
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmDialog
        title={`Rotate the ${asked ?? ''} key?`}
        open={asked !== undefined}
        onCancel={() => setAsked(undefined)}
        onConfirm={() => (asked ? rotate(asked) : undefined)}
        confirmLabel="Rotate"
        danger
        busy={busy}
      >
        <p>
          The current {asked} key of <strong>{project.name}</strong> is refused from the next request on.
          Every app and server using it must get the new one.
        </p>
      </ConfirmDialog>
      <Dialog
        title="New key"
        open={rotated !== undefined}
        onClose={() => {
          setRotated(undefined);
          reload();
        }}
        actions={
          <button
            type="button"
            className="primary"
            onClick={() => {
              setRotated(undefined);
              reload();
            }}
          >
            Done
          </button>
        }
      >
        {rotated && <KeysReveal publishableKey={rotated.publishableKey} secretKey={rotated.secretKey} />}
      </Dialog>
    </main>
  );
}
