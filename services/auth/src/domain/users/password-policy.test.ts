import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { dictionary } from '@zxcvbn-ts/language-common';
import { isCommonPassword, passwordSchema } from './password-policy';

const ROOT = path.resolve(__dirname, '../../../../..');

describe('password policy', () => {
  it.each(['password', '12345678', 'qwertyuiop', 'iloveyou', 'Password', 'QWERTY123', 'baseball'])(
    'refuses %s, a password often found in breaches, whatever its case',
    (p) => {
      expect(isCommonPassword(p)).toBe(true);
      const r = passwordSchema.safeParse(p);
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).toEqual([
        'is one of the passwords most often found in breaches: choose another',
      ]);
    },
  );

  it.each(['a long enough passphrase 42', 'correct horse battery staple', 'pw-8chars', 'Zq7#mK2!vL'])(
    'accepts %s',
    (p) => {
      expect(isCommonPassword(p)).toBe(false);
      expect(passwordSchema.safeParse(p).success).toBe(true);
    },
  );

  it('keeps its length bounds: 8 characters at least, 128 at most', () => {
    expect(passwordSchema.safeParse('x7#kQ2p').success).toBe(false);
    expect(passwordSchema.safeParse('x7#kQ2pw').success).toBe(true);
    expect(passwordSchema.safeParse(`${'x7#kQ2pw'.repeat(16)}`).success).toBe(true); // 128
    expect(passwordSchema.safeParse(`${'x7#kQ2pw'.repeat(16)}!`).success).toBe(false); // 129
  });

  it("the list on disk is the breach list of the pinned package (scripts/common-passwords.mjs --check), at least ASVS's top 3,000", () => {
    expect(() =>
      execFileSync(process.execPath, [path.join(ROOT, 'scripts/common-passwords.mjs'), '--check'], {
        stdio: 'pipe',
      }),
    ).not.toThrow();
    // the 3,000 most frequent entries of 8 characters or more are all refused
    const top = (dictionary['passwords-common'] ?? []).filter((p) => p.length >= 8).slice(0, 3000);
    expect(top).toHaveLength(3000);
    expect(top.filter((p) => !isCommonPassword(p))).toEqual([]);
  });
});
