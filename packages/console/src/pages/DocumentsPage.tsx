import { useId, useState, type FormEvent } from 'react';
import { useApi } from '../api/context';
import { ok } from '../api/client';
import type { StoredDocument } from '../api/types';
import { ErrorNotice } from '../components/ErrorNotice';
import { SelectField, TextField } from '../components/Field';
import { CursorPager, TableHead, useCursorPaging } from '../components/Paging';
import {
  cellText,
  documentColumns,
  documentQuery,
  FILTER_OPERATORS,
  filterProblems,
  type FieldFilter,
  type FilterOperator,
} from '../lib/document-query';
import { formatDate } from '../lib/format';
import { useLoad } from '../lib/use-load';
import { Link, usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

interface Applied {
  filters: FieldFilter[];
  sort: string;
  limit: number;
  includeTrashed: boolean;
}

/**
 * A collection's documents: the API's filters, sort and cursor paging, trashed documents on
 * request; each row opens the document, and moves it to the trash or back.
 */
export function DocumentsPage({ project, collection, can }: ProjectPageProps & { collection: string }) {
  usePageTitle(`${collection} · documents`);
  const api = useApi();
  const id = useId();
  const [draft, setDraft] = useState<Applied>({ filters: [], sort: '', limit: 20, includeTrashed: false });
  const [applied, setApplied] = useState<Applied>(draft);
  const paging = useCursorPaging();
  const { cursor } = paging;
  const [status, setStatus] = useState('');
  const [actionError, setActionError] = useState<unknown>();
  const path = { projectId: project.id, collectionName: collection };

  const meta = useLoad(
    () =>
      ok(
        api.GET('/api/admin/projects/{projectId}/collections/{name}', {
          params: { path: { projectId: project.id, name: collection } },
        }),
      ),
    [api, project.id, collection],
  );
  const page = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/documents/{collectionName}', {
            params: { path, query: documentQuery({ ...applied, cursor }) },
          }),
        )
      ).data,
    [api, project.id, collection, applied, cursor],
  );

  const problems = filterProblems(draft.filters);
  const apply = (e: FormEvent) => {
    e.preventDefault();
    if (problems.size > 0) return;
    setApplied({ ...draft, filters: draft.filters.map((f) => ({ ...f })) });
    paging.reset();
  };
  const setFilter = (i: number, patch: Partial<FieldFilter>) =>
    setDraft((d) => ({ ...d, filters: d.filters.map((f, j) => (j === i ? { ...f, ...patch } : f)) }));

  const act = async (doc: StoredDocument, action: 'trash' | 'restore') => {
    setActionError(undefined);
    setStatus('');
    const docPath = { params: { path: { ...path, id: doc._id } } };
    try {
      if (action === 'trash')
        await ok(api.DELETE('/api/admin/projects/{projectId}/documents/{collectionName}/{id}', docPath));
      else
        await ok(
          api.POST('/api/admin/projects/{projectId}/documents/{collectionName}/{id}/restore', docPath),
        );
      setStatus(
        action === 'trash' ? `Document ${doc._id} moved to the trash.` : `Document ${doc._id} restored.`,
      );
      page.reload();
    } catch (e) {
      setActionError(e);
    }
  };

  const schemaKeys = (meta.data?.schema?.fields ?? []).map((f) => f.key);
  const items = page.data?.items ?? [];
  const columns = documentColumns(schemaKeys, items);
  const base = `/projects/${project.id}/collections/${encodeURIComponent(collection)}`;

  return (
    <main id="main" className="page">
      <div className="page-head">
        <h1 tabIndex={-1}>
          <span className="muted">Documents of</span> {collection}
        </h1>
        <span className="head-actions">
          <Link to={base}>{can.write ? 'Schema and RLS' : 'Schema'}</Link>
          {can.write && (
            <Link className="button primary" to={`${base}/documents/new`}>
              New document
            </Link>
          )}
        </span>
      </div>
      {meta.data && (
        <p className="help">
          Row-level security{' '}
          {meta.data.rls.enabled
            ? `on (${meta.data.rls.mode}, owner field ${meta.data.rls.ownerField})`
            : 'off'}
          . The console sees every document, as the secret key does.
        </p>
      )}
      <form className="filters" onSubmit={apply} aria-label="Filters and sort">
        {draft.filters.map((f, i) => {
          const problem = problems.get(i);
          return (
            <fieldset className="filter-row" key={i}>
              <legend className="visually-hidden">Filter {i + 1}</legend>
              <TextField
                label="Field"
                inline
                value={f.field}
                list={`${id}-fields`}
                onChange={(e) => setFilter(i, { field: e.target.value })}
                spellCheck={false}
                error={problem}
              />
              <SelectField
                label="Condition"
                inline
                value={f.op}
                onChange={(e) => setFilter(i, { op: e.target.value as FilterOperator })}
                options={FILTER_OPERATORS.map((o) => [o.op, o.label] as const)}
              />
              <TextField
                label="Value"
                inline
                className="grow"
                value={f.value}
                onChange={(e) => setFilter(i, { value: e.target.value })}
                spellCheck={false}
              />
              <button
                type="button"
                onClick={() => setDraft((d) => ({ ...d, filters: d.filters.filter((_, j) => j !== i) }))}
              >
                Remove<span className="visually-hidden"> filter {i + 1}</span>
              </button>
            </fieldset>
          );
        })}
        <datalist id={`${id}-fields`}>
          {['_id', ...schemaKeys, 'createdAt', 'updatedAt'].map((k) => (
            <option key={k} value={k} />
          ))}
        </datalist>
        <div className="toolbar">
          <button
            type="button"
            onClick={() =>
              setDraft((d) => ({ ...d, filters: [...d.filters, { field: '', op: 'eq', value: '' }] }))
            }
          >
            Add a filter
          </button>
          <TextField
            label="Sort"
            inline
            value={draft.sort}
            placeholder="-createdAt"
            title="Up to 5 comma-separated fields, a minus sign for descending; empty for newest first."
            onChange={(e) => setDraft((d) => ({ ...d, sort: e.target.value }))}
            spellCheck={false}
          />
          <SelectField
            label="Per page"
            inline
            value={String(draft.limit)}
            onChange={(e) => setDraft((d) => ({ ...d, limit: Number(e.target.value) }))}
            options={['10', '20', '50', '100'].map((n) => [n, n] as const)}
          />
          <label className="check">
            <input
              type="checkbox"
              checked={draft.includeTrashed}
              onChange={(e) => setDraft((d) => ({ ...d, includeTrashed: e.target.checked }))}
            />
            Include trashed
          </label>
          <button type="submit" className="primary" disabled={problems.size > 0}>
            Apply
          </button>
        </div>
      </form>
      <ErrorNotice error={page.error} />
      <ErrorNotice error={actionError} />
      <p role="status" className="status">
        {status}
      </p>
      <div className="table-scroll">
        <table className="table documents">
          <caption className="visually-hidden">Documents of {collection}</caption>
          <TableHead columns={['Id', ...columns, 'Created']} actions={can.write} />
          <tbody>
            {items.map((doc) => (
              <tr key={doc._id} className={doc.isDeleted ? 'trashed' : undefined}>
                <th scope="row" className="mono">
                  <Link to={`${base}/documents/${doc._id}`}>{doc._id}</Link>
                  {doc.isDeleted && <span className="badge warn">in trash</span>}
                </th>
                {columns.map((c) => (
                  <td key={c}>{cellText(doc[c])}</td>
                ))}
                <td>{formatDate(doc.createdAt)}</td>
                {can.write && (
                  <td className="actions">
                    {doc.isDeleted ? (
                      <button type="button" onClick={() => void act(doc, 'restore')}>
                        Restore<span className="visually-hidden"> {doc._id}</span>
                      </button>
                    ) : (
                      <button type="button" onClick={() => void act(doc, 'trash')}>
                        Move to trash<span className="visually-hidden"> {doc._id}</span>
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
            {items.length === 0 && !page.loading && (
              <tr>
                <td colSpan={columns.length + (can.write ? 3 : 2)} className="muted">
                  No document{applied.filters.length > 0 ? ' matches these filters' : ''}.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <CursorPager
        paging={paging}
        nextCursor={page.data?.nextCursor}
        loading={page.loading}
        summary={page.data ? `${page.data.total} document${page.data.total === 1 ? '' : 's'}` : ''}
      />
    </main>
  );
}
