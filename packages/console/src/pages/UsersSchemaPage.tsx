import { useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import { ApiError } from '../api/errors';
import { ErrorNotice } from '../components/ErrorNotice';
import { SchemaEditor } from '../components/SchemaEditor';
import { SchemaTable } from '../components/SchemaTable';
import { fromEditable, schemaProblems, toEditable, type EditableField } from '../lib/schema-model';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

type UserFields = EditableField[];
const USER_KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** The extra profile fields of the project's users (beside email and password). */
export function UsersSchemaPage({ project, can }: ProjectPageProps) {
  usePageTitle(`Users schema · ${project.name}`);
  const api = useApi();
  const loaded = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/users-schema', {
            params: { path: { projectId: project.id } },
          }),
        )
      ).data.fields,
    [api, project.id],
  );
  if (!loaded.data)
    return (
      <main id="main" className="page">
        <h1 tabIndex={-1}>Users schema</h1>
        {loaded.loading ? <p role="status">Loading…</p> : <ErrorNotice error={loaded.error} />}
      </main>
    );
  if (!can.write)
    return (
      <main id="main" className="page">
        <h1 tabIndex={-1}>Users schema</h1>
        <p className="help">Profile fields users may have beside their email and password.</p>
        <SchemaTable fields={loaded.data} caption={`Users schema of ${project.name}`} withIndex={false} />
      </main>
    );
  return <Editor projectId={project.id} initial={toEditable(loaded.data)} />;
}

function Editor({ projectId, initial }: { projectId: string; initial: EditableField[] }) {
  const api = useApi();
  const [fields, setFields] = useState<UserFields>(initial);
  const { busy, error, setError, run } = useAction();
  const [status, setStatus] = useState('');
  const problems = schemaProblems(fields, USER_KEY);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setStatus('');
    if (problems.length > 0) {
      setError(new ApiError(0, 'INVALID_SCHEMA', 'Fix the marked fields first.', undefined, problems));
      return;
    }
    await run(async () => {
      await ok(
        api.PUT('/api/admin/projects/{projectId}/users-schema', {
          params: { path: { projectId } },
          body: {
            fields: fromEditable(fields, false) as Array<{
              key: string;
              type: 'String' | 'Number' | 'Boolean' | 'Date' | 'Object' | 'Array';
            }>,
          },
        }),
      );
      setStatus('Users schema saved.');
    });
  };

  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Users schema</h1>
      <p className="help">
        Profile fields users may have beside their email and password; users set them at signup and with
        update-profile.
      </p>
      <form onSubmit={(e) => void save(e)} className="form wide" noValidate>
        <SchemaEditor
          fields={fields}
          onChange={setFields}
          withIndex={false}
          problems={new Map(problems.map((x) => [x.path, x.message]))}
        />
        <ErrorNotice error={error} />
        <p role="status" className="status">
          {status}
        </p>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save users schema'}
        </button>
      </form>
    </main>
  );
}
