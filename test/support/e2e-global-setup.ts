import { stackEnv } from './stack-env';

/** The e2e tier needs the whole system; it fails (never skips) when the gateway is not up. */
export default async function globalSetup(): Promise<void> {
  const env = stackEnv();
  const base = env.BASE_URL ?? 'http://127.0.0.1:8080';
  try {
    const r = await fetch(`${base}/readyz`);
    if (r.status !== 200) throw new Error(`readyz answered ${r.status}: ${await r.text()}`);
  } catch (e) {
    throw new Error(
      `The e2e tests need the whole system: run \`npm run up\` first (gateway ${base} not ready: ${(e as Error).message})`,
    );
  }
  if (!env.PLATFORM_ADMIN_TOKEN)
    throw new Error('No PLATFORM_ADMIN_TOKEN: run `npm run up` (it writes .stack/env)');
}
