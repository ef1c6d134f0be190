import { stackEnv } from './stack-env';
import { STACK_CHECK_MAX_MS, stackNotReady } from './stack-readiness';

/**
 * Before each e2e file (jest.e2e.config.js's setupFilesAfterEnv): every process of the stack
 * answers its /readyz. A service that an earlier file left stopped or wedged then fails this file
 * at once, naming the service and its log, instead of every test of the file waiting out its
 * timeout (a wedged service can turn the e2e tier into an hour of timeouts). A service that an
 * earlier file restarted gets a moment to come back.
 */
beforeAll(async () => {
  const problems = await stackNotReady(stackEnv());
  if (problems.length > 0)
    throw new Error(
      `The stack is not ready before this file (${problems.join('; ')}); ` +
        '`npm run up` starts what stopped',
    );
}, STACK_CHECK_MAX_MS + 5_000);
