import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ConsoleRole } from '../console';
import type { ProjectId } from '../tenancy';
import { EVENT_VERSIONS, type EventCatalogue } from './catalogue';
import { createEvent, createPlatformEvent, type EventEnvelope } from './envelope';

/**
 * The one-time secrets of a verification or password-reset mail (the link token and the 8-digit
 * code) never travel in clear: auth seals them for the mail service with AES-256-GCM under
 * MAIL_ENVELOPE_KEY, a key only those two services hold. The event's id, type, version, project,
 * user, recipient and expiry are the additional authenticated data, so a sealed box opens only
 * inside the event it was made for: copied into another event, or with the recipient changed, it
 * does not authenticate and the mail service refuses it. Streams, dead letters and outboxes hold
 * only ciphertext.
 *
 * The console's mails (an invitation to a project, a console account's password reset) work the
 * same way with a link token alone (ConsoleCodeEventType, `{ token }`), bound to their own clear
 * fields.
 */
export type CodeEventType = 'auth.verification_requested' | 'auth.password_reset_requested';
export type ConsoleCodeEventType = 'console.invitation_requested' | 'console.password_reset_requested';
type SealedEventType = CodeEventType | ConsoleCodeEventType;

/** What auth seals. */
export interface MailCodes {
  /** The link token (the `{ token }` form of verify-email / reset-password). */
  token: string;
  /** The 8-digit code (the `{ email, otp }` form). */
  otp: string;
}

/** What the event carries instead of the codes; all binary fields base64url. */
export interface SealedCodes {
  alg: 'A256GCM';
  /** Names the key (a digest of it, not the key), so a rotation can keep the previous key. */
  kid: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** What auth seals in a console event: the link token of the invitation or the reset. */
export interface ConsoleMailCodes {
  token: string;
}

/** The clear fields of a code event; bound to the sealed box as authenticated data. */
export interface CodeEventFields {
  userId: string;
  email: string;
  expiresAt: string;
}

/** The clear fields of console.invitation_requested (its project is the envelope's). */
export interface ConsoleInvitationFields {
  invitationId: string;
  email: string;
  projectName: string;
  role: ConsoleRole;
  /** The inviting console account; null when the platform token invited. */
  invitedBy?: string | null;
}

/** The clear fields of console.password_reset_requested (a platform event: no project). */
export interface ConsolePasswordResetFields {
  accountId: string;
  email: string;
}

/** A key as configured (32 bytes), with what is derived from it once. */
export interface MailEnvelopeKey {
  readonly kid: string;
  /** The AES-256-GCM key (derived with HKDF, never the configured bytes themselves). */
  readonly aesKey: Buffer;
}

export class SealedCodesRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealedCodesRejected';
  }
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

/** 32 bytes as 64 hex characters, or as base64/base64url (43 characters, optionally one `=`). */
export function parseMailEnvelopeKey(raw: string): MailEnvelopeKey {
  const value = raw.trim();
  let bytes: Buffer | undefined;
  if (HEX_KEY.test(value)) bytes = Buffer.from(value, 'hex');
  else if (BASE64_KEY.test(value)) bytes = Buffer.from(value.replace(/=$/, ''), 'base64url');
  if (bytes?.length !== 32)
    throw new Error('must be 32 random bytes, as 64 hex characters or 43 base64/base64url characters');
  const aesKey = Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), 'baas/mail-envelope/a256gcm/v1', 32));
  const kid = createHmac('sha256', bytes)
    .update('baas/mail-envelope/kid/v1')
    .digest('base64url')
    .slice(0, 16);
  return { kid, aesKey };
}

/** For config schemas: MAIL_ENVELOPE_KEY (or MAIL_ENVELOPE_KEY_FILE) parsed once at boot. */
export const mailEnvelopeKeySchema = z.string().transform((v, ctx) => {
  try {
    return parseMailEnvelopeKey(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

interface Binding {
  id: string;
  type: SealedEventType;
  version: number;
  projectId: string | null;
}

const AAD_PREFIX = 'baas/mail-envelope/v1';

function aad(event: Binding, fields: CodeEventFields): Buffer {
  return Buffer.from(
    JSON.stringify([
      AAD_PREFIX,
      event.id,
      event.type,
      event.version,
      event.projectId,
      fields.userId,
      fields.email,
      fields.expiresAt,
    ]),
    'utf8',
  );
}

/** A console event's clear fields in a fixed order, or null when one is missing or mistyped. */
function consoleFields(type: ConsoleCodeEventType, data: Record<string, unknown>): unknown[] | null {
  const str = (k: string) => typeof data[k] === 'string';
  if (type === 'console.password_reset_requested')
    return str('accountId') && str('email') ? [data.accountId, data.email] : null;
  const invitedBy = data.invitedBy ?? null;
  if (!['invitationId', 'email', 'projectId', 'projectName', 'role'].every(str)) return null;
  if (invitedBy !== null && typeof invitedBy !== 'string') return null;
  return [data.invitationId, data.email, data.projectId, data.projectName, data.role, invitedBy];
}

function consoleAad(event: Binding, fields: unknown[]): Buffer {
  return Buffer.from(
    JSON.stringify([AAD_PREFIX, event.id, event.type, event.version, event.projectId, ...fields]),
    'utf8',
  );
}

function seal(key: MailEnvelopeKey, additional: Buffer, plain: object): SealedCodes {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.aesKey, iv);
  cipher.setAAD(additional);
  const body = Buffer.from(JSON.stringify(plain), 'utf8');
  const ciphertext = Buffer.concat([cipher.update(body), cipher.final()]);
  return {
    alg: 'A256GCM',
    kid: key.kid,
    iv: iv.toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
    tag: cipher.getAuthTag().toString('base64url'),
  };
}

export function sealCodes(
  key: MailEnvelopeKey,
  event: Binding,
  fields: CodeEventFields,
  codes: MailCodes,
): SealedCodes {
  return seal(key, aad(event, fields), { token: codes.token, otp: codes.otp });
}

const B64URL = /^[A-Za-z0-9_-]*$/;

function checkVersion(event: { type: SealedEventType; version: number }): void {
  if (event.version !== EVENT_VERSIONS[event.type])
    throw new SealedCodesRejected(
      `${event.type} version ${String(event.version)} is not accepted (only ${EVENT_VERSIONS[event.type]})`,
    );
}

function wellFormed(s: Partial<SealedCodes> | undefined): s is SealedCodes {
  return (
    !!s &&
    s.alg === 'A256GCM' &&
    typeof s.kid === 'string' &&
    typeof s.iv === 'string' &&
    typeof s.ciphertext === 'string' &&
    typeof s.tag === 'string' &&
    [s.iv, s.ciphertext, s.tag].every((v) => B64URL.test(v))
  );
}

/** Opens a sealed box against its authenticated data; what it held, parsed (null if not JSON). */
function unseal(keys: readonly MailEnvelopeKey[], s: SealedCodes, additional: Buffer): unknown {
  const key = keys.find((k) => k.kid === s.kid);
  if (!key) throw new SealedCodesRejected(`sealed with an unknown key (kid ${s.kid})`);
  const iv = Buffer.from(s.iv, 'base64url');
  const tag = Buffer.from(s.tag, 'base64url');
  if (iv.length !== 12 || tag.length !== 16) throw new SealedCodesRejected('malformed iv or tag');
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.aesKey, iv, { authTagLength: 16 });
    decipher.setAAD(additional);
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(Buffer.from(s.ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new SealedCodesRejected('the sealed codes do not authenticate for this event');
  }
  try {
    return JSON.parse(plain.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/**
 * Opens the codes of a code event with whichever of `keys` made them (the current key, and during
 * a rotation the previous one). Throws SealedCodesRejected for an event of another version, an
 * unknown key, or a box that does not authenticate against this very event.
 */
export function openCodes(keys: readonly MailEnvelopeKey[], event: EventEnvelope<CodeEventType>): MailCodes {
  checkVersion(event);
  const data = event.data as Partial<CodeEventFields> & { sealed?: Partial<SealedCodes> };
  if (
    typeof data.userId !== 'string' ||
    typeof data.email !== 'string' ||
    typeof data.expiresAt !== 'string' ||
    !wellFormed(data.sealed)
  )
    throw new SealedCodesRejected('the event carries no well-formed sealed codes');
  const fields = { userId: data.userId, email: data.email, expiresAt: data.expiresAt };
  const codes = unseal(keys, data.sealed, aad(event, fields)) as Partial<MailCodes> | null;
  if (typeof codes?.token !== 'string' || typeof codes.otp !== 'string')
    throw new SealedCodesRejected('the sealed codes are incomplete');
  return { token: codes.token, otp: codes.otp };
}

/**
 * Opens the link token of a console invitation or console password-reset event, like openCodes:
 * only in the very event it was sealed for, with one of `keys`.
 */
export function openConsoleCodes(
  keys: readonly MailEnvelopeKey[],
  event: EventEnvelope<ConsoleCodeEventType>,
): ConsoleMailCodes {
  checkVersion(event);
  const data = event.data as unknown as Record<string, unknown> & { sealed?: Partial<SealedCodes> };
  const fields = consoleFields(event.type, data);
  if (!fields || !wellFormed(data.sealed))
    throw new SealedCodesRejected('the event carries no well-formed sealed codes');
  const codes = unseal(keys, data.sealed, consoleAad(event, fields)) as Partial<ConsoleMailCodes> | null;
  if (typeof codes?.token !== 'string') throw new SealedCodesRejected('the sealed codes are incomplete');
  return { token: codes.token };
}

/**
 * A verification or password-reset event whose codes are sealed against the event itself (its id
 * is only known once the envelope exists, so the box is made right after).
 */
export function createCodeEvent<T extends CodeEventType>(
  key: MailEnvelopeKey,
  type: T,
  projectId: ProjectId,
  fields: CodeEventFields,
  codes: MailCodes,
  meta: { requestId?: string | null } = {},
): EventEnvelope<T> {
  const clear = { userId: fields.userId, email: fields.email, expiresAt: fields.expiresAt };
  // Both code events have this payload; TypeScript cannot narrow EventCatalogue[T] for a generic T.
  const payload = (sealed: SealedCodes) => ({ ...clear, sealed }) as EventCatalogue[T];
  const event = createEvent(type, projectId, payload(PENDING), meta);
  event.data = payload(sealCodes(key, event, clear, codes));
  return event;
}

/** console.invitation_requested for an invitation to `projectId`, its link token sealed. */
export function createConsoleInvitationEvent(
  key: MailEnvelopeKey,
  projectId: ProjectId,
  fields: ConsoleInvitationFields,
  codes: ConsoleMailCodes,
  meta: { requestId?: string | null } = {},
): EventEnvelope<'console.invitation_requested'> {
  const clear = {
    invitationId: fields.invitationId,
    email: fields.email,
    projectId: projectId as string,
    projectName: fields.projectName,
    role: fields.role,
    invitedBy: fields.invitedBy ?? null,
  };
  const event = createEvent('console.invitation_requested', projectId, { ...clear, sealed: PENDING }, meta);
  return sealConsoleEvent(key, event, clear, codes);
}

/** console.password_reset_requested (a platform event, projectId null), its link token sealed. */
export function createConsolePasswordResetEvent(
  key: MailEnvelopeKey,
  fields: ConsolePasswordResetFields,
  codes: ConsoleMailCodes,
  meta: { requestId?: string | null } = {},
): EventEnvelope<'console.password_reset_requested'> {
  const clear = { accountId: fields.accountId, email: fields.email };
  const event = createPlatformEvent('console.password_reset_requested', { ...clear, sealed: PENDING }, meta);
  return sealConsoleEvent(key, event, clear, codes);
}

function sealConsoleEvent<T extends ConsoleCodeEventType>(
  key: MailEnvelopeKey,
  event: EventEnvelope<T>,
  clear: Record<string, unknown>,
  codes: ConsoleMailCodes,
): EventEnvelope<T> {
  const fields = consoleFields(event.type, clear);
  if (!fields) throw new Error(`incomplete ${event.type} fields`);
  const sealed = seal(key, consoleAad(event, fields), { token: codes.token });
  event.data = { ...clear, sealed } as EventCatalogue[T];
  return event;
}

const PENDING: SealedCodes = { alg: 'A256GCM', kid: '', iv: '', ciphertext: '', tag: '' };
