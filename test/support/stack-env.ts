import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The KEY=value lines `npm run up` writes to .stack/env (process env wins). */
export function stackEnv(): Record<string, string> {
  const file = join(__dirname, '..', '..', '.stack', 'env');
  const out: Record<string, string> = {};
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m?.[1]) out[m[1]] = m[2] ?? '';
    }
  }
  for (const k of Object.keys(out)) {
    const v = process.env[k];
    if (v) out[k] = v;
  }
  return out;
}
