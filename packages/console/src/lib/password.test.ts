import { newPasswordProblem, newPasswordReady } from './password';

describe('new passwords', () => {
  it('judges the length, then the repetition', () => {
    expect(newPasswordProblem('', '')).toBeUndefined();
    expect(newPasswordProblem('short', '')).toBe('At least 8 characters.');
    expect(newPasswordProblem('x'.repeat(129), '')).toBe('At most 128 characters.');
    expect(newPasswordProblem('long enough', '')).toBeUndefined();
    expect(newPasswordProblem('long enough', 'long enougH')).toBe('The two passwords differ.');
    expect(newPasswordProblem('long enough', 'long enough')).toBeUndefined();
  });

  it('is ready when both are typed and agree (spaces kept as typed)', () => {
    expect(newPasswordReady('long enough', '')).toBe(false);
    expect(newPasswordReady('long enough', 'long enough')).toBe(true);
    expect(newPasswordReady(' long enough', 'long enough')).toBe(false);
    expect(newPasswordReady('short', 'short')).toBe(false);
  });
});
