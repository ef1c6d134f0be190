import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The console's API client is typed from the OpenAPI document: its generated types
 * (packages/console/src/api/schema.d.ts) must be what services/gateway/openapi.json generates.
 */
describe('the console API types', () => {
  it('are what the committed OpenAPI document generates (run `npm run api-types -w @baas/console`)', () => {
    const script = join(__dirname, '..', '..', 'packages', 'console', 'scripts', 'api-types.mjs');
    const run = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
