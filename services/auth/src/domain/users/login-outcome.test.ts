import { errors } from '@baas/common';
import { authErrors } from './auth-errors';
import { loginOutcome } from './login';

describe('loginOutcome', () => {
  it('tells a wrong password, a throttled account, an unverified email and saturated hashing apart', () => {
    expect(loginOutcome(authErrors.invalidCredentials())).toBe('failure');
    expect(loginOutcome(authErrors.loginThrottled(30))).toBe('throttled');
    expect(loginOutcome(authErrors.emailNotVerified())).toBe('unverified');
    expect(loginOutcome(authErrors.busy())).toBe('busy');
    expect(loginOutcome(errors.validation('bad body'))).toBe('error');
    expect(loginOutcome(new Error('database gone'))).toBe('error');
  });
});
