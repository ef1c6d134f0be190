import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * The type test: `tsc --noEmit` on test/types/*.ts. The fixtures use the generics as intended and
 * carry `@ts-expect-error` on misuses, so this fails both when a correct use stops compiling and
 * when a misuse starts compiling (an unused `@ts-expect-error` is an error).
 */
it('compiles the type fixtures (correct uses pass, misuses are errors)', async () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const project = path.join(__dirname, '..', 'test', 'types', 'tsconfig.json');
  const out = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [tsc, '--noEmit', '-p', project], (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
  expect(out.output).toBe('');
  expect(out.code).toBe(0);
}, 60000);
