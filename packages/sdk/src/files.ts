import type { CallOptions, HttpClient, UploadProgress } from './http.js';

export interface UploadResult {
  message: string;
  /** Public URL, readable without a key. */
  url: string;
  /** `<projectId>/<random>[.ext]`: what `delete` takes. */
  path: string;
  provider: string;
}

/** React Native's file reference (`{ uri, name, type }`), which its FormData accepts. */
export interface ReactNativeFile {
  uri: string;
  name: string;
  type: string;
}

export interface UploadOptions extends CallOptions {
  /** File name sent in the multipart part (only its extension is kept by the server). */
  filename?: string;
  /**
   * Progress of the request body. With XMLHttpRequest (browsers, React Native) one event per
   * chunk; where only fetch exists (Node) two events: `loaded: 0` before and `loaded: total` after.
   */
  onProgress?: (p: UploadProgress) => void;
}

/** File storage: uploads (multipart field `file`), public URLs, deletion. */
export class StorageClient {
  constructor(
    private readonly http: HttpClient,
    private readonly filesBaseUrl: string,
  ) {}

  async upload(file: Blob | ReactNativeFile, opts: UploadOptions = {}): Promise<UploadResult> {
    const form = new FormData();
    const isBlob = typeof Blob !== 'undefined' && file instanceof Blob;
    const name =
      opts.filename ?? (isBlob ? (file as Blob & { name?: string }).name : (file as ReactNativeFile).name);
    if (isBlob) form.append('file', file, name ?? 'file');
    else {
      // React Native's FormData takes the { uri, name, type } object itself.
      (form as { append(name: string, value: unknown): void }).append('file', file);
    }
    const { onProgress, signal, headers } = opts;
    const rest = { ...(signal ? { signal } : {}), ...(headers ? { headers } : {}) };
    return this.http.request<UploadResult>({
      method: 'POST',
      path: '/api/storage/upload',
      form,
      bearer: true,
      ...(onProgress ? { onUploadProgress: onProgress } : {}),
      ...(isBlob ? { uploadSize: file.size } : {}),
      ...rest,
    });
  }

  /** The public URL of a stored path (what `upload` answered as `url`, for the default file host). */
  downloadUrl(path: string): string {
    return `${this.filesBaseUrl}/${path.split('/').map(encodeURIComponent).join('/')}`;
  }

  /** Deletes for good. DELETE is retried on network errors: a retry of a deletion that went through answers 404 `FILE_NOT_FOUND`. */
  async delete(path: string, opts: CallOptions = {}): Promise<void> {
    await this.http.request({
      method: 'DELETE',
      path: '/api/storage/file',
      json: { path },
      bearer: true,
      ...opts,
    });
  }
}
