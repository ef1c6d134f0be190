import { randomBytes } from 'node:crypto';
import { trustedProjectId } from '../tenancy';
import { loadConfig } from '../config';
import { z } from 'zod';
import type { EventEnvelope } from './envelope';
import {
  createCodeEvent,
  createConsoleInvitationEvent,
  createConsolePasswordResetEvent,
  mailEnvelopeKeySchema,
  openCodes,
  openConsoleCodes,
  parseMailEnvelopeKey,
  SealedCodesRejected,
  type CodeEventType,
  type ConsoleCodeEventType,
} from './sealed-codes';

const key = parseMailEnvelopeKey(randomBytes(32).toString('base64url'));
const other = parseMailEnvelopeKey(randomBytes(32).toString('hex'));
const project = trustedProjectId('a'.repeat(24));
const fields = { userId: 'u1', email: 'ann@example.com', expiresAt: '2030-01-01T00:00:00.000Z' };
const codes = { token: 'link-token-' + randomBytes(32).toString('base64url'), otp: '01234567' };

const event = (type: CodeEventType = 'auth.verification_requested') =>
  createCodeEvent(key, type, project, fields, codes, { requestId: 'r1' });

describe('sealed codes of verification and reset events', () => {
  it('carry neither the token nor the code in clear, and open with the key', () => {
    const e = event();
    const json = JSON.stringify(e);
    expect(json).not.toContain(codes.token);
    expect(json).not.toContain(codes.otp);
    expect(e.version).toBe(2);
    expect(e.data).toMatchObject({ ...fields, sealed: { alg: 'A256GCM', kid: key.kid } });
    expect(openCodes([key], e)).toEqual(codes);
    // a round trip through JSON (what the stream holds) opens too
    expect(openCodes([key], JSON.parse(json) as EventEnvelope<CodeEventType>)).toEqual(codes);
  });

  it('seal every event with a fresh iv', () => {
    const [a, b] = [event(), event()];
    expect(a.data.sealed.iv).not.toBe(b.data.sealed.iv);
    expect(a.data.sealed.ciphertext).not.toBe(b.data.sealed.ciphertext);
  });

  it('open with the previous key during a rotation, and never with an unknown one', () => {
    expect(openCodes([other, key], event())).toEqual(codes);
    expect(() => openCodes([other], event())).toThrow(/unknown key/);
  });

  const tampered: [string, (e: EventEnvelope<CodeEventType>) => void][] = [
    ['another event id', (e) => void (e.id = 'another')],
    ['another project', (e) => void (e.projectId = trustedProjectId('b'.repeat(24)))],
    ['another type', (e) => void (e.type = 'auth.password_reset_requested')],
    ['another recipient', (e) => void (e.data.email = 'mallory@example.com')],
    ['another user', (e) => void (e.data.userId = 'u2')],
    ['another expiry', (e) => void (e.data.expiresAt = '2031-01-01T00:00:00.000Z')],
    ['a flipped ciphertext bit', (e) => void (e.data.sealed.ciphertext = flip(e.data.sealed.ciphertext))],
    ['a flipped tag bit', (e) => void (e.data.sealed.tag = flip(e.data.sealed.tag))],
    ['the key id of another key', (e) => void (e.data.sealed.kid = other.kid)],
  ];
  it.each(tampered)('refuse a sealed box moved to %s', (_what, change) => {
    const e = event();
    change(e);
    expect(() => openCodes([key, other], e)).toThrow(SealedCodesRejected);
  });

  it('refuse version 1 events (codes in clear) and events without a sealed box', () => {
    const v1 = { ...event(), version: 1 };
    expect(() => openCodes([key], v1)).toThrow(/version 1 is not accepted/);
    const bare = event() as unknown as { data: Record<string, unknown> };
    delete bare.data.sealed;
    expect(() => openCodes([key], bare as unknown as EventEnvelope<CodeEventType>)).toThrow(
      /no well-formed sealed codes/,
    );
  });
});

describe('sealed tokens of console invitation and password-reset events', () => {
  const token = 'console-token-' + randomBytes(32).toString('base64url');
  const invitation = (invitedBy?: string | null) =>
    createConsoleInvitationEvent(
      key,
      project,
      { invitationId: 'i1', email: 'ann@example.com', projectName: 'Shop', role: 'developer', invitedBy },
      { token },
      { requestId: 'r1' },
    );
  const reset = () =>
    createConsolePasswordResetEvent(key, { accountId: 'acc1', email: 'ann@example.com' }, { token });

  it('carry the token only sealed; the invitation names its project, the reset none', () => {
    const inv = invitation('acc9');
    expect(JSON.stringify(inv)).not.toContain(token);
    expect(inv).toMatchObject({ type: 'console.invitation_requested', version: 1, projectId: project });
    expect(inv.data).toMatchObject({
      invitationId: 'i1',
      email: 'ann@example.com',
      projectId: project,
      projectName: 'Shop',
      role: 'developer',
      invitedBy: 'acc9',
      sealed: { alg: 'A256GCM', kid: key.kid },
    });
    expect(openConsoleCodes([key], JSON.parse(JSON.stringify(inv)) as typeof inv)).toEqual({ token });
    expect(invitation().data.invitedBy).toBeNull();
    expect(openConsoleCodes([other, key], invitation())).toEqual({ token });

    const r = reset();
    expect(JSON.stringify(r)).not.toContain(token);
    expect(r).toMatchObject({ type: 'console.password_reset_requested', version: 1, projectId: null });
    expect(r.data).toMatchObject({ accountId: 'acc1', email: 'ann@example.com' });
    expect(openConsoleCodes([key], JSON.parse(JSON.stringify(r)) as typeof r)).toEqual({ token });
  });

  const tamperedInvitation: [string, (e: EventEnvelope<'console.invitation_requested'>) => void][] = [
    ['another event id', (e) => void (e.id = 'another')],
    ['another project (envelope)', (e) => void (e.projectId = trustedProjectId('b'.repeat(24)))],
    ['another project (data)', (e) => void (e.data.projectId = 'b'.repeat(24))],
    ['another recipient', (e) => void (e.data.email = 'mallory@example.com')],
    ['another role', (e) => void (e.data.role = 'owner')],
    ['another project name', (e) => void (e.data.projectName = 'Bank')],
    ['another inviter', (e) => void (e.data.invitedBy = 'acc2')],
    ['another invitation', (e) => void (e.data.invitationId = 'i2')],
    ['a flipped tag bit', (e) => void (e.data.sealed.tag = flip(e.data.sealed.tag))],
  ];
  it.each(tamperedInvitation)('refuse an invitation token moved to %s', (_what, change) => {
    const e = invitation('acc9');
    change(e);
    expect(() => openConsoleCodes([key, other], e)).toThrow(SealedCodesRejected);
  });

  it('refuse a reset token moved to another account, recipient, type or key', () => {
    const changes: ((e: EventEnvelope<ConsoleCodeEventType>) => void)[] = [
      (e) => void ((e.data as { accountId: string }).accountId = 'acc2'),
      (e) => void (e.data.email = 'mallory@example.com'),
      (e) => void (e.type = 'console.invitation_requested'),
      (e) => void (e.version = 2),
    ];
    for (const change of changes) {
      const e = reset() as EventEnvelope<ConsoleCodeEventType>;
      change(e);
      expect(() => openConsoleCodes([key], e)).toThrow(SealedCodesRejected);
    }
    expect(() => openConsoleCodes([other], reset())).toThrow(/unknown key/);
  });

  it('do not open as user codes, nor user codes as console ones', () => {
    const asUser = reset() as unknown as EventEnvelope<CodeEventType>;
    expect(() => openCodes([key], asUser)).toThrow(SealedCodesRejected);
    const asConsole = event() as unknown as EventEnvelope<ConsoleCodeEventType>;
    expect(() => openConsoleCodes([key], asConsole)).toThrow(SealedCodesRejected);
  });
});

function flip(b64: string): string {
  const bytes = Buffer.from(b64, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString('base64url');
}

describe('MAIL_ENVELOPE_KEY', () => {
  const schema = z.object({ MAIL_ENVELOPE_KEY: mailEnvelopeKeySchema });
  const raw = randomBytes(32);

  it.each([
    ['hex', raw.toString('hex')],
    ['base64url', raw.toString('base64url')],
    ['base64 with padding', raw.toString('base64')],
  ])('takes 32 bytes as %s, all naming the same key', (_f, value) => {
    const k = loadConfig(schema, { MAIL_ENVELOPE_KEY: value }).MAIL_ENVELOPE_KEY;
    expect(k.kid).toBe(parseMailEnvelopeKey(raw.toString('hex')).kid);
  });

  it.each([
    ['31 bytes', randomBytes(31).toString('hex')],
    ['33 bytes', randomBytes(33).toString('base64url')],
    ['a passphrase', 'correct horse battery staple and more words'],
  ])('refuses %s with a message naming the variable', (_f, value) => {
    expect(() => loadConfig(schema, { MAIL_ENVELOPE_KEY: value })).toThrow(/MAIL_ENVELOPE_KEY: must be 32/);
  });

  it('is required', () => {
    expect(() => loadConfig(schema, {})).toThrow(/MAIL_ENVELOPE_KEY/);
  });

  it('never names the key itself: the key id is a digest', () => {
    expect(parseMailEnvelopeKey(raw.toString('hex')).kid).not.toContain(
      raw.toString('base64url').slice(0, 8),
    );
  });
});
