import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import { detailsUnder } from '../api/errors';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatBytes, parseOrigins } from '../lib/format';
import { navigate, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/** Name, signups, verification, allowed origins and limits (PATCH merges them); deletion. */
export function ProjectSettingsPage({ project, reload }: ProjectPageProps) {
  usePageTitle(`Settings · ${project.name}`);
  const api = useApi();
  const id = useId();
  const s = project.settings;
  const [name, setName] = useState(project.name);
  const [publicSignups, setPublicSignups] = useState(s.publicSignups);
  const [verify, setVerify] = useState(s.requireEmailVerification);
  const [origins, setOrigins] = useState(s.allowedOrigins.join('\n'));
  const [documents, setDocuments] = useState(String(s.limits.documents));
  const [storage, setStorage] = useState(String(s.limits.storageBytes));
  const [mail, setMail] = useState(String(s.limits.mailMonthly));
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<unknown>();

  const problems = detailsUnder(error, '');
  const problem = (path: string) => problems.get(path);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved('');
    try {
      await ok(
        api.PATCH('/api/admin/projects/{projectId}', {
          params: { path: { projectId: project.id } },
          body: {
            name: name.trim(),
            settings: {
              publicSignups,
              requireEmailVerification: verify,
              allowedOrigins: parseOrigins(origins),
              limits: {
                documents: Number(documents),
                storageBytes: Number(storage),
                mailMonthly: Number(mail),
              },
            },
          },
        }),
      );
      setSaved('Settings saved.');
      reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const remove = async () => {
    setBusy(true);
    setDeleteError(undefined);
    try {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}', { params: { path: { projectId: project.id } } }),
      );
      navigate('/');
    } catch (err) {
      setDeleteError(err);
      setDeleting(false);
    } finally {
      setBusy(false);
    }
  };

  const numberField = (
    key: string,
    label: string,
    value: string,
    set: (v: string) => void,
    hint?: string,
  ) => {
    const p = problem(`settings.limits.${key}`);
    return (
      <div className="field">
        <label htmlFor={`${id}-${key}`}>{label}</label>
        <input
          id={`${id}-${key}`}
          type="number"
          min={0}
          step={1}
          value={value}
          onChange={(e) => set(e.target.value)}
          required
          aria-invalid={p ? true : undefined}
          aria-describedby={`${id}-${key}-hint`}
        />
        <p className={p ? 'field-error' : 'help'} id={`${id}-${key}-hint`}>
          {p ?? hint}
        </p>
      </div>
    );
  };

  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Settings</h1>
      <form onSubmit={(e) => void save(e)} className="form" noValidate>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
            aria-invalid={problem('name') ? true : undefined}
            aria-describedby={`${id}-name-hint`}
          />
          <p className="field-error" id={`${id}-name-hint`}>
            {problem('name')}
          </p>
        </div>
        <fieldset>
          <legend>End users</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={publicSignups}
              onChange={(e) => setPublicSignups(e.target.checked)}
            />
            Public signups (anyone with the publishable key may sign up)
          </label>
          <label className="check">
            <input type="checkbox" checked={verify} onChange={(e) => setVerify(e.target.checked)} />
            Require email verification before login
          </label>
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-origins`}>Allowed origins, one per line</label>
          <textarea
            id={`${id}-origins`}
            rows={4}
            value={origins}
            onChange={(e) => setOrigins(e.target.value)}
            spellCheck={false}
            aria-describedby={`${id}-origins-hint`}
          />
          <p
            className={problem('settings.allowedOrigins') ? 'field-error' : 'help'}
            id={`${id}-origins-hint`}
          >
            {[...problems.entries()]
              .filter(([k]) => k.startsWith('settings.allowedOrigins'))
              .map(([k, v]) => `${k.replace('settings.allowedOrigins.', 'line ')}: ${v}`)
              .join('; ') ||
              'Scheme, host and port (https://app.example.com). Empty: requests from any origin are answered.'}
          </p>
        </div>
        <fieldset>
          <legend>Limits</legend>
          <div className="grid-3">
            {numberField('documents', 'Documents (trash included)', documents, setDocuments)}
            {numberField(
              'storageBytes',
              'Storage (bytes)',
              storage,
              setStorage,
              Number.isFinite(Number(storage)) ? formatBytes(Number(storage)) : undefined,
            )}
            {numberField('mailMonthly', 'Mails per month', mail, setMail)}
          </div>
        </fieldset>
        <ErrorNotice error={error} />
        <p role="status" className="status">
          {saved}
        </p>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save settings'}
        </button>
      </form>

      <section className="danger-zone" aria-labelledby={`${id}-danger`}>
        <h2 id={`${id}-danger`}>Delete this project</h2>
        <p>
          Its keys stop working at once; its documents, users, files and mail templates are removed. This
          cannot be undone.
        </p>
        <ErrorNotice error={deleteError} />
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          Delete project…
        </button>
      </section>
      <ConfirmDialog
        title={`Delete ${project.name}?`}
        open={deleting}
        onCancel={() => setDeleting(false)}
        onConfirm={remove}
        confirmLabel="Delete the project"
        typeToConfirm={project.name}
        danger
        busy={busy}
      >
        <p>
          Everything of <strong>{project.name}</strong> (<code>{project.id}</code>) is removed.
        </p>
      </ConfirmDialog>
    </main>
  );
}
