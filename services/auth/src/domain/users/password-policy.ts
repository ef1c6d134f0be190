import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * ASVS 6.2: at least 8 characters, no composition rules, used exactly as received (no trimming),
 * and not one of the passwords most often found in breaches (6.2.12). 128 is the upper bound;
 * anything longer is refused before it reaches the hasher.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** scripts/common-passwords.mjs writes it (lowercase, one a line, `#` comments). */
const COMMON_PASSWORDS_FILE = path.resolve(__dirname, '../../../data/common-passwords.txt');

let common: Set<string> | undefined;

/**
 * Whether a password is on the breached list, whatever its letters' case ("Password1" is as weak
 * as "password1"). Read on first use (~1.5 MB): a process that never sets a password never holds it.
 */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(
    readFileSync(COMMON_PASSWORDS_FILE, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
  return common.has(password.toLowerCase());
}

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`)
  .refine(
    (p) => !isCommonPassword(p),
    'is one of the passwords most often found in breaches: choose another',
  );

export const emailSchema = z.string().trim().max(254).pipe(z.email('must be a valid email address'));
