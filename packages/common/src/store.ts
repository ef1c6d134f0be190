import { z } from 'zod';

/**
 * Which store a service uses is one setting, `DATABASE_URL`: a `postgres://` URL (the default
 * deployment) or a `mongodb://` URL whose path names the service's database.
 */
export type StoreKind = 'postgres' | 'mongodb';

export interface StoreLocation {
  kind: StoreKind;
  url: string;
  /** The database named in the URL. */
  database: string;
}

export function parseDatabaseUrl(url: string): StoreLocation {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('DATABASE_URL is not a URL');
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (u.protocol === 'postgres:' || u.protocol === 'postgresql:') {
    if (!database) throw new Error('DATABASE_URL must name the database (postgres://user@host:5432/db)');
    return { kind: 'postgres', url, database };
  }
  if (u.protocol === 'mongodb:' || u.protocol === 'mongodb+srv:') {
    if (!database) throw new Error('DATABASE_URL must name the database (mongodb://host:27017/db)');
    return { kind: 'mongodb', url, database };
  }
  throw new Error('DATABASE_URL must start with postgres://, postgresql://, mongodb:// or mongodb+srv://');
}

export const databaseUrlSchema = z.string().transform((v, ctx) => {
  try {
    return parseDatabaseUrl(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});
