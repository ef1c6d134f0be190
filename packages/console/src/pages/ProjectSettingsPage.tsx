import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import { detailsUnder } from '../api/errors';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextAreaField, TextField } from '../components/Field';
import { formatBytes, parseOrigins } from '../lib/format';
import { useAction } from '../lib/use-action';
import { navigate, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/** Name, signups, verification, allowed origins and limits (PATCH merges them); deletion. */
export function ProjectSettingsPage(props: ProjectPageProps) {
  usePageTitle(`Settings · ${props.project.name}`);
  return props.can.manage ? <SettingsForm {...props} /> : <SettingsView {...props} />;
}

/** The settings as they are, for viewers and developers (only owners change them). */
function SettingsView({ project }: ProjectPageProps) {
  const s = project.settings;
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Settings</h1>
      <p className="help">Only the project&apos;s owners change its settings.</p>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{project.name}</dd>
        <dt>Public signups</dt>
        <dd>{s.publicSignups ? 'on' : 'off'}</dd>
        <dt>Email verification before login</dt>
        <dd>{s.requireEmailVerification ? 'required' : 'not required'}</dd>
        <dt>Allowed origins</dt>
        <dd>{s.allowedOrigins.length > 0 ? s.allowedOrigins.join(', ') : 'any origin'}</dd>
        <dt>Documents (trash included)</dt>
        <dd>{s.limits.documents.toLocaleString()}</dd>
        <dt>Storage</dt>
        <dd>{formatBytes(s.limits.storageBytes)}</dd>
        <dt>Mails per month</dt>
        <dd>{s.limits.mailMonthly.toLocaleString()}</dd>
      </dl>
    </main>
  );
}

function SettingsForm({ project, reload }: ProjectPageProps) {
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
  const saving = useAction();
  const error = saving.error;
  const [saved, setSaved] = useState('');
  const [deleting, setDeleting] = useState(false);
  const deletion = useAction();
  const deleteError = deletion.error;
  // Saving and deleting share one busy state: each disables the other's buttons.
  const busy = saving.busy || deletion.busy;

  const problems = detailsUnder(error, '');
  const problem = (path: string) => problems.get(path);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaved('');
    await saving.run(async () => {
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
    });
  };

  const remove = async () => {
    const done = await deletion.run(async () => {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}', { params: { path: { projectId: project.id } } }),
      );
      navigate('/');
    });
    if (!done) setDeleting(false);
  };

  const numberField = (
    key: string,
    label: string,
    value: string,
    set: (v: string) => void,
    hint?: string,
  ) => (
    <TextField
      label={label}
      type="number"
      min={0}
      step={1}
      value={value}
      onChange={(e) => set(e.target.value)}
      required
      hint={hint}
      error={problem(`settings.limits.${key}`)}
    />
  );

  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Settings</h1>
      <form onSubmit={(e) => void save(e)} className="form" noValidate>
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
          error={problem('name')}
        />
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
        <TextAreaField
          label="Allowed origins, one per line"
          rows={4}
          value={origins}
          onChange={(e) => setOrigins(e.target.value)}
          spellCheck={false}
          hint="Scheme, host and port (https://app.example.com). Empty: requests from any origin are answered."
          error={
            [...problems.entries()]
              .filter(([k]) => k.startsWith('settings.allowedOrigins'))
              .map(([k, v]) => `${k.replace('settings.allowedOrigins.', 'line ')}: ${v}`)
              .join('; ') || undefined
          }
        />
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
