import { randomBytes } from 'node:crypto';
import { errors, isProjectIdString, trustedProjectId, type ProjectId } from '@baas/common';

/**
 * File paths are `<projectId>/<name>` where the name is generated here (random, 128 bits) and
 * keeps only a sanitised extension of the client's file name. No client string ever becomes a
 * path segment, so nothing can escape the project's prefix or collide with another upload.
 */
const NAME_RE = /^[A-Za-z0-9_-]{16,64}(\.[a-z0-9]{1,10})?$/;
const EXT_RE = /^[a-z0-9]{1,10}$/;
const BIDI_OR_QUOTE = /[\u200e\u200f\u202a-\u202e\u2066-\u2069"]/;

function isControlChar(c: string): boolean {
  const code = c.codePointAt(0) ?? 0;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** The extension of a client file name, lower-cased, or '' when it has none worth keeping. */
export function sanitizeExtension(filename: string | undefined): string {
  if (!filename) return '';
  const base = filename.split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return '';
  const ext = base.slice(dot + 1).toLowerCase();
  return EXT_RE.test(ext) ? ext : '';
}

export function generateFileName(filename: string | undefined, random: () => string = randomName): string {
  const ext = sanitizeExtension(filename);
  return ext ? `${random()}.${ext}` : random();
}

function randomName(): string {
  return randomBytes(16).toString('base64url');
}

/** The client's file name reduced to printable, header-safe characters (for Content-Disposition). */
export function sanitizeOriginalName(filename: string | undefined): string {
  const base = (filename ?? '').split(/[/\\]/).pop() ?? '';
  // Control characters, bidi overrides and quotes never reach a header.
  const cleaned = [...base]
    .filter((c) => !isControlChar(c) && !BIDI_OR_QUOTE.test(c))
    .join('')
    .trim();
  return cleaned.slice(0, 200) || 'file';
}

export function isFileName(name: string): boolean {
  return NAME_RE.test(name);
}

export interface ParsedPath {
  projectId: ProjectId;
  name: string;
  path: string;
}

/** Parses a stored path; null when it is not one this service could have generated. */
export function parseFilePath(path: string): ParsedPath | null {
  const slash = path.indexOf('/');
  if (slash < 0) return null;
  const pid = path.slice(0, slash);
  const name = path.slice(slash + 1);
  if (!isProjectIdString(pid) || !isFileName(name)) return null;
  return { projectId: trustedProjectId(pid), name, path };
}

/**
 * Traversal-looking input is refused outright with 400 (rather than just not found), so a probe
 * is visible as such: `..`, backslashes, NUL and other control characters, percent-encoding,
 * absolute paths and empty segments.
 */
export function assertNoTraversal(path: string): void {
  const bad =
    path.includes('..') ||
    path.includes('\\') ||
    path.includes('%') ||
    path.startsWith('/') ||
    path.includes('//') ||
    [...path].some(isControlChar);
  if (bad) throw errors.badRequest('INVALID_PATH', 'Invalid file path');
}
