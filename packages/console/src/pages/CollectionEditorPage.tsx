import { useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import { ApiError } from '../api/errors';
import type { Collection, Rls } from '../api/types';
import { ConfirmDialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../components/Field';
import { SchemaTable } from '../components/SchemaTable';
import { SchemaEditor } from '../components/SchemaEditor';
import { fromEditable, schemaProblems, toEditable, type EditableField } from '../lib/schema-model';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { Link, navigate, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Registers a collection, or edits one: its schema and its row-level security. */
export function CollectionEditorPage(p: ProjectPageProps & { name: string | undefined }) {
  const api = useApi();
  const existing = useLoad(
    async (): Promise<Collection | undefined> =>
      p.name === undefined
        ? undefined
        : ok(
            api.GET('/api/admin/projects/{projectId}/collections/{name}', {
              params: { path: { projectId: p.project.id, name: p.name } },
            }),
          ),
    [api, p.project.id, p.name],
  );
  usePageTitle(p.name ? `${p.name} · schema and RLS` : 'Register a collection');
  if (p.name !== undefined && !existing.data)
    return (
      <main id="main" className="page">
        <h1 tabIndex={-1}>{p.name}</h1>
        {existing.loading ? <p role="status">Loading…</p> : <ErrorNotice error={existing.error} />}
      </main>
    );
  if (!p.can.write)
    return existing.data ? (
      <CollectionView {...p} collection={existing.data} />
    ) : (
      <main id="main" className="page">
        <h1 tabIndex={-1}>Register a collection</h1>
        <p>Only the project&apos;s developers and owners register collections.</p>
      </main>
    );
  return <Editor {...p} existing={existing.data} />;
}

/** A collection's schema and row-level security as they are, for viewers. */
function CollectionView({ project, collection }: ProjectPageProps & { collection: Collection }) {
  const rls = collection.rls;
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Collection {collection.name}</h1>
      <p>
        <Link to={`/projects/${project.id}/collections/${encodeURIComponent(collection.name)}/documents`}>
          Documents of {collection.name}
        </Link>
      </p>
      <h2>Schema</h2>
      <SchemaTable fields={collection.schema?.fields} caption={`Schema of ${collection.name}`} />
      <h2>Row-level security</h2>
      <p>
        {rls.enabled
          ? `On: ${rls.mode === 'private' ? 'users read and write their own documents' : 'everyone reads, owners write'} (owner field ${rls.ownerField}).`
          : 'Off: publishable-key callers reach every document.'}
      </p>
    </main>
  );
}

function Editor({
  project,
  existing,
  name: routeName,
}: ProjectPageProps & { existing: Collection | undefined; name: string | undefined }) {
  const api = useApi();
  const [name, setName] = useState(routeName ?? '');
  const [fields, setFields] = useState<EditableField[]>(() => toEditable(existing?.schema?.fields));
  const [rls, setRls] = useState<Rls>(
    existing?.rls ?? { enabled: false, mode: 'private', ownerField: 'userId' },
  );
  const { busy, error, setError, run } = useAction();
  const [confirmRlsOff, setConfirmRlsOff] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [saved, setSaved] = useState('');
  const isNew = existing === undefined;
  const problems = schemaProblems(fields);
  const problemMap = new Map(problems.map((x) => [x.path, x.message]));
  const nameProblem =
    isNew && name !== '' && !NAME.test(name)
      ? 'Letters, digits, _ and -, starting with a letter (64 at most).'
      : undefined;
  const turningRlsOff = existing?.rls.enabled === true && !rls.enabled;

  const put = async () => {
    setSaved('');
    await run(async () => {
      const collection = await ok(
        api.PUT('/api/admin/projects/{projectId}/collections/{name}', {
          params: { path: { projectId: project.id, name } },
          body: {
            schema: fields.length > 0 ? { fields: fromEditable(fields) } : null,
            rls: rls.enabled ? rls : { enabled: false },
          },
        }),
      );
      if (isNew)
        navigate(`/projects/${project.id}/collections/${encodeURIComponent(collection.name)}/documents`);
      else setSaved('Saved.');
    });
    setConfirmRlsOff(false);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problems.length > 0 || nameProblem || name === '') {
      setError(new ApiError(0, 'INVALID_SCHEMA', 'Fix the marked fields first.', undefined, problems));
      return;
    }
    // Turning RLS off exposes every document to the publishable key's callers: ask first.
    if (turningRlsOff) setConfirmRlsOff(true);
    else void put();
  };

  // Like every delete in the console, it clears an earlier error when it starts.
  const remove = async () => {
    const done = await run(async () => {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}/collections/{name}', {
          params: { path: { projectId: project.id, name } },
        }),
      );
      navigate(`/projects/${project.id}/collections`);
    });
    if (!done) setDeleting(false);
  };

  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>{isNew ? 'Register a collection' : `Collection ${name}`}</h1>
      {!isNew && (
        <p>
          <Link to={`/projects/${project.id}/collections/${encodeURIComponent(name)}/documents`}>
            Documents of {name}
          </Link>
        </p>
      )}
      <form onSubmit={submit} className="form wide" noValidate>
        {isNew && (
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            spellCheck={false}
            autoComplete="off"
            hint="Letters, digits, _ and -, starting with a letter; never users or system…."
            error={nameProblem}
          />
        )}
        <fieldset>
          <legend>Schema</legend>
          <p className="help">
            Declared fields are checked on every write; other fields are stored as given. Index: exact-match
            filters on the field stay fast (8 at most).
          </p>
          <SchemaEditor fields={fields} onChange={setFields} problems={problemMap} />
        </fieldset>
        <fieldset>
          <legend>Row-level security</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={rls.enabled}
              onChange={(e) => setRls({ ...rls, enabled: e.target.checked })}
            />
            Enabled: publishable-key callers reach documents through their owner field
          </label>
          <div className="grid-2">
            <SelectField
              label="Mode"
              value={rls.mode}
              disabled={!rls.enabled}
              onChange={(e) => setRls({ ...rls, mode: e.target.value as Rls['mode'] })}
              options={[
                ['private', 'private: users read and write their own documents'],
                ['public-read', 'public-read: everyone reads, owners write'],
              ]}
            />
            <TextField
              label="Owner field"
              value={rls.ownerField}
              disabled={!rls.enabled}
              onChange={(e) => setRls({ ...rls, ownerField: e.target.value })}
              spellCheck={false}
            />
          </div>
          {turningRlsOff && (
            <p className="notice notice-warn">
              Saving turns row-level security off: you will be asked to confirm.
            </p>
          )}
        </fieldset>
        <ErrorNotice error={error} />
        <p role="status" className="status">
          {saved}
        </p>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Saving…' : isNew ? 'Register' : 'Save'}
          </button>
          {!isNew && (
            <button type="button" className="danger" onClick={() => setDeleting(true)}>
              Delete collection…
            </button>
          )}
        </div>
      </form>
      <ConfirmDialog
        title={`Turn row-level security off for ${name}?`}
        open={confirmRlsOff}
        onCancel={() => setConfirmRlsOff(false)}
        onConfirm={put}
        confirmLabel="Turn RLS off and save"
        danger
        busy={busy}
      >
        <p>
          Without RLS, reads with the publishable key return every document of <strong>{name}</strong>,
          whoever owns it. The change is recorded in the audit log.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title={`Delete collection ${name}?`}
        open={deleting}
        onCancel={() => setDeleting(false)}
        onConfirm={remove}
        confirmLabel="Delete the collection"
        typeToConfirm={name}
        danger
        busy={busy}
      >
        <p>Its registration and all its documents are removed.</p>
      </ConfirmDialog>
    </main>
  );
}
