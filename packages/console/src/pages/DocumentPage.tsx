import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import { ApiError } from '../api/errors';
import type { StoredDocument } from '../api/types';
import { describe, ErrorNotice } from '../components/ErrorNotice';
import { editableBody, parseJsonObject } from '../lib/document-query';
import { formatDate } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { Link, navigate, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/**
 * One document: its managed fields, its own fields as JSON to edit (saved as a replacement:
 * fields left out are removed), the API's validation errors beside the editor; trash and
 * restore. Without an id: a new document.
 */
export function DocumentPage(p: ProjectPageProps & { collection: string; documentId: string | undefined }) {
  usePageTitle(p.documentId ? `${p.collection} · ${p.documentId}` : `${p.collection} · new document`);
  const api = useApi();
  // Kept here: the editor starts afresh from each version the server answers.
  const [status, setStatus] = useState('');
  const path = { projectId: p.project.id, collectionName: p.collection };
  const loaded = useLoad(
    async (): Promise<StoredDocument | undefined> =>
      p.documentId === undefined
        ? undefined
        : ok(
            api.GET('/api/admin/projects/{projectId}/documents/{collectionName}/{id}', {
              params: { path: { ...path, id: p.documentId }, query: { include_deleted: 'true' } },
            }),
          ),
    [api, p.project.id, p.collection, p.documentId],
  );
  if (p.documentId !== undefined && !loaded.data)
    return (
      <main id="main" className="page">
        <h1 tabIndex={-1}>Document {p.documentId}</h1>
        {loaded.loading ? <p role="status">Loading…</p> : <ErrorNotice error={loaded.error} />}
      </main>
    );
  if (!p.can.write)
    return loaded.data ? (
      <DocumentView {...p} doc={loaded.data} />
    ) : (
      <main id="main" className="page">
        <h1 tabIndex={-1}>New document</h1>
        <p>Only the project&apos;s developers and owners insert documents.</p>
      </main>
    );
  return (
    <Editor
      key={loaded.data?.updatedAt ?? 'new'}
      {...p}
      doc={loaded.data}
      onChanged={(said) => {
        setStatus(said);
        loaded.reload();
      }}
      status={status}
    />
  );
}

/** A document as it is, for viewers. */
function DocumentView({
  collection,
  project,
  doc,
}: ProjectPageProps & { collection: string; doc: StoredDocument }) {
  const base = `/projects/${project.id}/collections/${encodeURIComponent(collection)}/documents`;
  return (
    <main id="main" className="page">
      <p>
        <Link to={base}>← Documents of {collection}</Link>
      </p>
      <h1 tabIndex={-1}>
        <span className="mono">{doc._id}</span>
      </h1>
      <Facts doc={doc} />
      <h2>Fields</h2>
      <pre className="json-view" tabIndex={0} aria-label="Fields (JSON)">
        {JSON.stringify(editableBody(doc), null, 2)}
      </pre>
    </main>
  );
}

function Facts({ doc }: { doc: StoredDocument }) {
  return (
    <dl className="facts">
      <dt>State</dt>
      <dd>
        {doc.isDeleted ? (
          <span className="badge warn">in trash since {formatDate(doc.deletedAt)}</span>
        ) : (
          'active'
        )}
      </dd>
      <dt>Created</dt>
      <dd>{formatDate(doc.createdAt)}</dd>
      <dt>Updated</dt>
      <dd>{formatDate(doc.updatedAt)}</dd>
    </dl>
  );
}

function Editor({
  project,
  collection,
  doc,
  onChanged,
  status,
}: ProjectPageProps & {
  collection: string;
  doc: StoredDocument | undefined;
  onChanged: (status: string) => void;
  status: string;
}) {
  const api = useApi();
  const id = useId();
  const [text, setText] = useState(() => JSON.stringify(doc ? editableBody(doc) : {}, null, 2));
  const { busy, error, setError, run } = useAction();
  const base = `/projects/${project.id}/collections/${encodeURIComponent(collection)}/documents`;
  const path = { projectId: project.id, collectionName: collection };

  const save = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseJsonObject(text);
    if (!parsed.ok) {
      setError(new ApiError(0, 'INVALID_JSON', parsed.message, undefined, []));
      return;
    }
    void run(async () => {
      if (!doc) {
        const created = await ok(
          api.POST('/api/admin/projects/{projectId}/documents/{collectionName}', {
            params: { path },
            body: parsed.value,
          }),
        );
        navigate(`${base}/${created._id}`, { replace: true });
        return;
      }
      await ok(
        api.PUT('/api/admin/projects/{projectId}/documents/{collectionName}/{id}', {
          params: { path: { ...path, id: doc._id } },
          body: parsed.value,
        }),
      );
      onChanged('Saved.');
    });
  };

  const trashOrRestore = () =>
    run(async () => {
      if (!doc) return;
      const params = { params: { path: { ...path, id: doc._id } } };
      if (doc.isDeleted)
        await ok(api.POST('/api/admin/projects/{projectId}/documents/{collectionName}/{id}/restore', params));
      else await ok(api.DELETE('/api/admin/projects/{projectId}/documents/{collectionName}/{id}', params));
      onChanged(doc.isDeleted ? 'Restored.' : 'Moved to the trash.');
    });

  const details = error instanceof ApiError ? error.details : [];
  return (
    <main id="main" className="page">
      <p>
        <Link to={base}>← Documents of {collection}</Link>
      </p>
      <h1 tabIndex={-1}>{doc ? <span className="mono">{doc._id}</span> : `New document in ${collection}`}</h1>
      {doc && <Facts doc={doc} />}
      <form onSubmit={save} className="form wide">
        <div className="field">
          <label htmlFor={`${id}-json`}>Fields (JSON){doc ? ': saving replaces the document' : ''}</label>
          <textarea
            id={`${id}-json`}
            className="mono json-editor"
            value={text}
            onChange={(e) => setText(e.target.value)}
            rows={18}
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-errors`}
          />
        </div>
        <div id={`${id}-errors`} className="json-errors">
          {error !== undefined && (
            <div className="notice notice-error" role="alert">
              <p>
                <strong>{describe(error)}</strong>
                {error instanceof ApiError && error.status > 0 && (
                  <span className="muted">
                    {' '}
                    ({error.status} {error.code})
                  </span>
                )}
              </p>
              {details.length > 0 && (
                <ul className="details">
                  {details.map((d, i) => (
                    <li key={i}>
                      <code>{d.path}</code>: {d.message}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          )}
        </div>
        <p role="status" className="status">
          {status}
        </p>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={busy}>
            {doc ? 'Save' : 'Insert'}
          </button>
          {doc && (
            <button type="button" onClick={() => void trashOrRestore()} disabled={busy}>
              {doc.isDeleted ? 'Restore' : 'Move to trash'}
            </button>
          )}
        </div>
      </form>
    </main>
  );
}
