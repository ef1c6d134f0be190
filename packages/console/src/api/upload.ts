import type { ApiPaths } from './client';
import { ApiError } from './errors';
import type { ConsoleSession } from '../auth/session';

type UploadPath = '/api/admin/projects/{projectId}/files';
export type Uploaded = ApiPaths[UploadPath]['post']['responses'][201]['content']['application/json'];

export interface UploadProgress {
  loaded: number;
  total: number;
}

/**
 * An upload with progress: fetch cannot report how much of a request body was sent, so this one
 * route goes through XMLHttpRequest, to the documented path, with the session's credentials (as
 * the typed client adds them) and the documented answer type.
 */
export function uploadFile(
  session: ConsoleSession,
  projectId: string,
  file: File,
  onProgress: (p: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<Uploaded> {
  const path: UploadPath = '/api/admin/projects/{projectId}/files';
  const url = `${window.location.origin}${path.replace('{projectId}', encodeURIComponent(projectId))}`;
  const authorized = session.authorize(new Request(url, { method: 'POST' }));
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = session.credentials !== 'omit';
    authorized.headers.forEach((value, name) => xhr.setRequestHeader(name, value));
    xhr.upload.onprogress = (e) =>
      onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onerror = () => reject(ApiError.unreachable(new Error('network error')));
    xhr.onabort = () => reject(new ApiError(0, 'ABORTED', 'Upload cancelled', undefined, []));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      const headers = new Headers();
      for (const name of ['retry-after', 'x-request-id']) {
        const v = xhr.getResponseHeader(name);
        if (v !== null) headers.set(name, v);
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as Uploaded);
      else reject(ApiError.fromAnswer(new Response(null, { status: xhr.status, headers }), body));
    };
    signal?.addEventListener('abort', () => xhr.abort());
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
