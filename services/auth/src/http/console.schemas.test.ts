import {
  acceptInvitationSchema,
  accountListQuery,
  consoleLoginSchema,
  consolePasswordSchema,
  consoleResetSchema,
  createAccountSchema,
  inviteMemberSchema,
  memberRoleSchema,
  resolveSessionSchema,
} from './console.schemas';

/** A valid address of exactly `n` characters (labels of at most 63). */
function emailOfLength(n: number): string {
  const local = 'a'.repeat(64);
  let domain = '';
  let left = n - local.length - 1 - '.io'.length;
  while (left > 0) {
    const label = Math.min(63, left - (domain ? 1 : 0));
    domain += `${domain ? '.' : ''}${'d'.repeat(label)}`;
    left = n - local.length - 1 - domain.length - '.io'.length;
  }
  return `${local}@${domain}.io`;
}

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, v: unknown) =>
  schema.safeParse(v).success;

describe('console request limits', () => {
  it('takes an email of 254 characters and refuses 255 (accounts and invitations)', () => {
    expect(emailOfLength(254)).toHaveLength(254);
    expect(emailOfLength(255)).toHaveLength(255);
    expect(ok(createAccountSchema, { email: emailOfLength(254), password: 'p'.repeat(8) })).toBe(true);
    expect(ok(createAccountSchema, { email: emailOfLength(255), password: 'p'.repeat(8) })).toBe(false);
    expect(ok(inviteMemberSchema, { email: emailOfLength(254), role: 'viewer' })).toBe(true);
    expect(ok(inviteMemberSchema, { email: emailOfLength(255), role: 'viewer' })).toBe(false);
    expect(ok(consoleLoginSchema, { email: 'x'.repeat(254), password: 'p' })).toBe(true);
    expect(ok(consoleLoginSchema, { email: 'x'.repeat(255), password: 'p' })).toBe(false);
    expect(ok(createAccountSchema, { email: 'not-an-email', password: 'p'.repeat(8) })).toBe(false);
  });

  it('takes passwords of 8 to 128 characters where one is set, as for end users', () => {
    const email = 'ops@example.com';
    for (const [len, valid] of [
      [7, false],
      [8, true],
      [128, true],
      [129, false],
    ] as const) {
      const password = 'p'.repeat(len);
      expect([len, ok(createAccountSchema, { email, password })]).toEqual([len, valid]);
      expect([len, ok(consoleResetSchema, { token: 't', newPassword: password })]).toEqual([len, valid]);
      expect([len, ok(acceptInvitationSchema, { token: 't', password })]).toEqual([len, valid]);
      expect([len, ok(consolePasswordSchema, { currentPassword: 'x', newPassword: password })]).toEqual([
        len,
        valid,
      ]);
    }
    // Sign-in applies only the maximum (a policy change must not lock old passwords out).
    expect(ok(consoleLoginSchema, { email, password: 'p' })).toBe(true);
    expect(ok(consoleLoginSchema, { email, password: 'p'.repeat(128) })).toBe(true);
    expect(ok(consoleLoginSchema, { email, password: 'p'.repeat(129) })).toBe(false);
    expect(ok(consoleLoginSchema, { email, password: '' })).toBe(false);
  });

  it('knows three roles and nothing else', () => {
    for (const role of ['viewer', 'developer', 'owner']) expect(ok(memberRoleSchema, { role })).toBe(true);
    for (const role of ['admin', 'Owner', '', null, 1]) expect(ok(memberRoleSchema, { role })).toBe(false);
    expect(ok(inviteMemberSchema, { email: 'a@b.io', role: 'superuser' })).toBe(false);
  });

  it('refuses unknown fields (no mass assignment of platformAdmin through an invitation)', () => {
    expect(ok(acceptInvitationSchema, { token: 't', platformAdmin: true })).toBe(false);
    expect(ok(inviteMemberSchema, { email: 'a@b.io', role: 'viewer', platformAdmin: true })).toBe(false);
    expect(ok(createAccountSchema, { email: 'a@b.io', password: 'p'.repeat(8), id: 'x' })).toBe(false);
  });

  it('takes link tokens of 1 to 256 characters and search terms up to 254', () => {
    expect(ok(consoleResetSchema, { token: 't'.repeat(256), newPassword: 'p'.repeat(8) })).toBe(true);
    expect(ok(consoleResetSchema, { token: 't'.repeat(257), newPassword: 'p'.repeat(8) })).toBe(false);
    expect(ok(consoleResetSchema, { token: '', newPassword: 'p'.repeat(8) })).toBe(false);
    expect(ok(accountListQuery, { search: 's'.repeat(254) })).toBe(true);
    expect(ok(accountListQuery, { search: 's'.repeat(255) })).toBe(false);
  });

  it('resolves only a SHA-256 hex digest', () => {
    expect(ok(resolveSessionSchema, { tokenHash: 'a'.repeat(64) })).toBe(true);
    expect(ok(resolveSessionSchema, { tokenHash: 'a'.repeat(63) })).toBe(false);
    expect(ok(resolveSessionSchema, { tokenHash: 'A'.repeat(64) })).toBe(false);
  });
});
