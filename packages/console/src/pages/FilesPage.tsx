import { useId, useRef, useState, type FormEvent } from 'react';
import { useConsole } from '../api/context';
import { ok } from '../api/client';
import type { AdminFile } from '../api/types';
import { uploadFile, type UploadProgress } from '../api/upload';
import { ConfirmDialog, Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { CursorPager, TableHead, useCursorPaging } from '../components/Paging';
import { formatBytes, formatDate, percentOf } from '../lib/format';
import { useAction } from '../lib/use-action';
import { useLoad } from '../lib/use-load';
import { usePageTitle } from '../router';
import type { ProjectPageProps } from './ProjectLayout';

/** Public files are served by the gateway at /files/<path>: the console's own origin. */
const publicPath = (f: AdminFile) => `/files/${f.path.split('/').map(encodeURIComponent).join('/')}`;
const isImage = (f: AdminFile) => /^image\/(png|jpeg|gif|webp|avif)$/.test(f.contentType);

/** The project's files: list, image previews, upload with progress, deletion. */
export function FilesPage({ project, can }: ProjectPageProps) {
  usePageTitle(`Files · ${project.name}`);
  const { api, session } = useConsole();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const paging = useCursorPaging();
  const { cursor } = paging;
  const [progress, setProgress] = useState<UploadProgress | undefined>();
  // Deletion runs through `run`; the upload (its progress is its busy state) sets the same error.
  const { busy, error, setError, run } = useAction();
  const [status, setStatus] = useState('');
  const [preview, setPreview] = useState<AdminFile | undefined>();
  const [deleting, setDeleting] = useState<AdminFile | undefined>();
  const abort = useRef<AbortController | undefined>(undefined);

  const page = useLoad(
    async () =>
      (
        await ok(
          api.GET('/api/admin/projects/{projectId}/files', {
            params: { path: { projectId: project.id }, query: { limit: '20', cursor } },
          }),
        )
      ).data,
    [api, project.id, cursor],
  );

  const upload = async (e: FormEvent) => {
    e.preventDefault();
    const file = input.current?.files?.[0];
    if (!file) return;
    setError(undefined);
    setStatus('');
    abort.current = new AbortController();
    setProgress({ loaded: 0, total: file.size });
    try {
      const stored = await uploadFile(session, project.id, file, setProgress, abort.current.signal);
      setStatus(`Uploaded ${file.name} as ${stored.path}.`);
      if (input.current) input.current.value = '';
      paging.reset();
      page.reload();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(undefined);
      abort.current = undefined;
    }
  };

  const remove = async (f: AdminFile) => {
    await run(async () => {
      await ok(
        api.DELETE('/api/admin/projects/{projectId}/files/{name}', {
          params: { path: { projectId: project.id, name: f.name } },
        }),
      );
      setStatus(`Deleted ${f.originalName}.`);
      page.reload();
    });
    setDeleting(undefined);
  };

  const items = page.data?.items ?? [];
  const pct = progress ? percentOf(progress.loaded, progress.total) : 0;
  return (
    <main id="main" className="page">
      <h1 tabIndex={-1}>Files</h1>
      {can.write && (
        <form className="toolbar" onSubmit={(e) => void upload(e)}>
          <div className="field inline">
            <label htmlFor={`${id}-file`}>File to upload</label>
            <input id={`${id}-file`} ref={input} type="file" required disabled={progress !== undefined} />
          </div>
          <button type="submit" className="primary" disabled={progress !== undefined}>
            Upload
          </button>
          {progress && (
            <span className="upload-progress">
              <progress max={100} value={pct} aria-label="Upload progress" />
              <span role="status">
                {pct}% ({formatBytes(progress.loaded)} of {formatBytes(progress.total)})
              </span>
              <button type="button" onClick={() => abort.current?.abort()}>
                Cancel upload
              </button>
            </span>
          )}
        </form>
      )}
      <ErrorNotice error={page.error} />
      <ErrorNotice error={error} />
      <p role="status" className="status">
        {status}
      </p>
      <table className="table">
        <caption className="visually-hidden">Files of {project.name}</caption>
        <TableHead columns={['Preview', 'Name', 'Type', 'Size', 'Uploaded']} actions={can.write} />
        <tbody>
          {items.map((f) => (
            <tr key={f.path}>
              <td>
                {isImage(f) ? (
                  <button type="button" className="thumb" onClick={() => setPreview(f)}>
                    <img src={publicPath(f)} alt={`Preview of ${f.originalName}`} loading="lazy" />
                  </button>
                ) : (
                  <span className="muted">–</span>
                )}
              </td>
              <th scope="row">
                <a href={publicPath(f)} target="_blank" rel="noreferrer noopener">
                  {f.originalName}
                </a>
                <div className="help mono">{f.name}</div>
              </th>
              <td>{f.contentType}</td>
              <td>{formatBytes(f.size)}</td>
              <td>{formatDate(f.createdAt)}</td>
              {can.write && (
                <td className="actions">
                  <button type="button" className="danger-text" onClick={() => setDeleting(f)}>
                    Delete<span className="visually-hidden"> {f.originalName}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
          {items.length === 0 && !page.loading && (
            <tr>
              <td colSpan={can.write ? 6 : 5} className="muted">
                No files yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <CursorPager paging={paging} nextCursor={page.data?.nextCursor} loading={page.loading} />
      <Dialog
        title={preview?.originalName ?? 'Preview'}
        open={preview !== undefined}
        onClose={() => setPreview(undefined)}
      >
        {preview && <img className="preview" src={publicPath(preview)} alt={preview.originalName} />}
      </Dialog>
      <ConfirmDialog
        title={`Delete ${deleting?.originalName ?? ''}?`}
        open={deleting !== undefined}
        onCancel={() => setDeleting(undefined)}
        onConfirm={() => (deleting ? remove(deleting) : undefined)}
        confirmLabel="Delete the file"
        danger
        busy={busy}
      >
        <p>The file is deleted for good; its public URL stops working.</p>
      </ConfirmDialog>
    </main>
  );
}
