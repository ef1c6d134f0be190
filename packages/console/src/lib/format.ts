/** Bytes as people read them (1 KB = 1024 bytes, as the quotas are set). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} ${v === 1 ? 'byte' : 'bytes'}` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A share of a limit, 0..100 (a zero limit is full as soon as anything is used). */
export function percentOf(used: number, limit: number): number {
  if (limit <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, Math.round((used / limit) * 100));
}

/** Allowed origins typed one per line (or comma-separated), blank lines dropped. */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Who did what an audit entry records: a console account by its email, the platform admin token,
 * an end user by id, or someone not known to be one (a failed sign-in, a replayed refresh token).
 */
export function formatAuditActor(actor: { type: string; email?: unknown; id?: unknown }): string {
  if (typeof actor.email === 'string') return actor.email;
  if (actor.type === 'platform-admin') return 'platform admin token';
  if (actor.type === 'end-user') return typeof actor.id === 'string' ? `user ${actor.id}` : 'user';
  return actor.type;
}
