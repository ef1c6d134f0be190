/**
 * Whether every process of the stack answers its /readyz (the gateway and each service whose URL
 * `.stack/env` names); used before each e2e file (test/support/e2e-stack-check.ts).
 */
const SERVICES = [
  ['gateway', 'BASE_URL'],
  ['auth', 'AUTH_URL'],
  ['data', 'DATA_URL'],
  ['storage', 'STORAGE_URL'],
  ['mail', 'MAIL_URL'],
  ['janitor', 'JANITOR_URL'],
] as const;
const WAIT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 3_000;
/** The longest stackNotReady can take: the wait, then one more round of timed-out requests. */
export const STACK_CHECK_MAX_MS = WAIT_MS + SERVICES.length * REQUEST_TIMEOUT_MS + 1_000;

async function answer(url: string): Promise<string | null> {
  try {
    const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return r.status === 200 ? null : `readyz answered ${r.status}`;
  } catch (e) {
    return (e as Error).message;
  }
}

/** What does not answer, with its log (none: []), polled until all answer or `waitMs` has passed. */
export async function stackNotReady(env: Record<string, string>, waitMs = WAIT_MS): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const problems: string[] = [];
    for (const [name, key] of SERVICES) {
      const url = env[key];
      if (!url) continue;
      const problem = await answer(url);
      if (problem) problems.push(`${name} (${url}, log .stack/logs/${name}.log): ${problem}`);
    }
    if (problems.length === 0 || Date.now() >= deadline) return problems;
    await new Promise((r) => setTimeout(r, 500));
  }
}
