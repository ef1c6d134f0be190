import { z } from 'zod';

/**
 * ASVS 6.2: at least 8 characters, no composition rules, used exactly as received (no trimming).
 * 128 is the upper bound; anything longer is refused before it reaches the hasher.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`);

export const emailSchema = z.string().trim().max(254).pipe(z.email('must be a valid email address'));
