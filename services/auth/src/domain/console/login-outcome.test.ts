import { errors } from '@baas/common';
import { authErrors } from '../users/auth-errors';
import { consoleLoginOutcome } from './login';

describe('consoleLoginOutcome', () => {
  it('tells a wrong password, a throttled account and saturated hashing apart', () => {
    expect(consoleLoginOutcome(authErrors.invalidCredentials())).toBe('failure');
    expect(consoleLoginOutcome(authErrors.loginThrottled(30))).toBe('throttled');
    expect(consoleLoginOutcome(authErrors.busy())).toBe('busy');
    expect(consoleLoginOutcome(errors.validation('bad body'))).toBe('error');
    expect(consoleLoginOutcome(new Error('database gone'))).toBe('error');
  });
});
