/** The platform's password policy (auth's password-policy.ts, as for end users): length only. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/** What is wrong with a new password and its repetition, or undefined; '' is not judged yet. */
export function newPasswordProblem(password: string, repeat: string): string | undefined {
  if (password === '') return undefined;
  if (password.length < PASSWORD_MIN) return `At least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `At most ${PASSWORD_MAX} characters.`;
  if (repeat !== '' && repeat !== password) return 'The two passwords differ.';
  return undefined;
}

/** Both typed, and acceptable. */
export function newPasswordReady(password: string, repeat: string): boolean {
  return password !== '' && repeat === password && newPasswordProblem(password, repeat) === undefined;
}
