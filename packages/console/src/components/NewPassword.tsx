import { PASSWORD_MAX, PASSWORD_MIN, newPasswordProblem } from '../lib/password';
import { TextField } from './Field';

/** A new password typed twice, judged by the platform's policy as it is typed. */
export function NewPassword(p: {
  password: string;
  repeat: string;
  onChange: (password: string, repeat: string) => void;
  label?: string;
}) {
  const problem = newPasswordProblem(p.password, p.repeat);
  const differs = problem === 'The two passwords differ.';
  return (
    <>
      <TextField
        label={p.label ?? 'New password'}
        type="password"
        value={p.password}
        onChange={(e) => p.onChange(e.target.value, p.repeat)}
        autoComplete="new-password"
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        required
        hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}
        error={differs ? undefined : problem}
      />
      <TextField
        label="Repeat the password"
        type="password"
        value={p.repeat}
        onChange={(e) => p.onChange(p.password, e.target.value)}
        autoComplete="new-password"
        required
        error={differs ? problem : undefined}
      />
    </>
  );
}
