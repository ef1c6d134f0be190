import { connect } from '@nats-io/transport-node';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import { client, type CallOptions, type CallResult } from '../support/e2e';
import {
  openCodes,
  parseMailEnvelopeKey,
  type CodeEventType,
  type EventEnvelope,
  type MailEnvelopeKey,
} from '@baas/common';
import { stackEnv, stackSecret, stackNatsAuth } from '../support/stack-env';

/**
 * Helpers for the auth e2e files. The gateway allows 20 /api/userAuth calls per IP per window, so
 * `authClient()` moves to a fresh client IP every 12 such calls.
 */
export function authClient() {
  let call = client();
  let n = 0;
  return function <T = any>(method: string, path: string, opts: CallOptions = {}): Promise<CallResult<T>> {
    if (path.startsWith('/api/userAuth') && ++n % 12 === 0) call = client();
    return call<T>(method, path, opts);
  };
}

export type AuthCall = ReturnType<typeof authClient>;

export const HEADER_MODE = { 'x-refresh-token-mode': 'header' };

export function uniqueEmail(tag = 'u'): string {
  return `${tag}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.test`;
}

export async function signupUser(
  call: AuthCall,
  key: string,
  extra: Record<string, unknown> = {},
  email = uniqueEmail(),
) {
  const r = await call('POST', '/api/userAuth/signup', {
    key,
    headers: HEADER_MODE,
    body: { email, password: 'password-123', ...extra },
  });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${JSON.stringify(r.body)}`);
  return {
    email,
    password: 'password-123',
    userId: r.body.user._id as string,
    access: r.body.accessToken as string,
    refresh: r.body.refreshToken as string,
  };
}

export interface AuthEvent {
  id: string;
  type: string;
  version: number;
  projectId: string;
  /**
   * `code` (the link token) and `otp` are not in the event: a verification or reset event carries
   * them sealed for the mail service; the tap opens them with the stack's MAIL_ENVELOPE_KEY.
   */
  data: { userId: string; email: string; code: string; otp?: string; expiresAt: string; changed?: string[] };
}

const CODE_EVENTS = new Set(['auth.verification_requested', 'auth.password_reset_requested']);

/** The event as received; for a code event, with its codes opened (and checked absent in clear). */
function opened(raw: string, keys: MailEnvelopeKey[]): AuthEvent {
  const e = JSON.parse(raw) as AuthEvent;
  if (!CODE_EVENTS.has(e.type)) return e;
  const codes = openCodes(keys, e as unknown as EventEnvelope<CodeEventType>);
  if (raw.includes(codes.token) || raw.includes(codes.otp))
    throw new Error(`${e.type} ${e.id} carries its codes in clear`);
  return { ...e, data: { ...e.data, code: codes.token, otp: codes.otp } };
}

/** Listens to the auth and user events on NATS, as the mail service would receive them. */
export class EventTap {
  private readonly seen: AuthEvent[] = [];
  /** Messages that were not events, or code events whose codes did not open or were in clear. */
  readonly problems: string[] = [];
  private constructor(
    private readonly nc: NatsConnection,
    private readonly subs: Subscription[],
  ) {}

  static async open(): Promise<EventTap> {
    const nc = (await connect({
      servers: stackEnv().NATS_URL ?? 'nats://127.0.0.1:4222',
      ...stackNatsAuth(),
    })) as NatsConnection;
    const tap = new EventTap(nc, []);
    const keys = [parseMailEnvelopeKey(stackSecret('MAIL_ENVELOPE_KEY'))];
    for (const subject of ['baas.events.auth.*', 'baas.events.user.*']) {
      tap.subs.push(
        nc.subscribe(subject, {
          callback: (_err: Error | null, msg: Msg) => {
            let e: AuthEvent | undefined;
            try {
              e = opened(msg.string(), keys);
            } catch (err) {
              tap.problems.push(String(err));
            }
            if (e) tap.seen.push(e);
          },
        }),
      );
    }
    await nc.flush();
    return tap;
  }

  /** The latest event of the type for the user (waits for it to arrive). */
  async waitFor(
    type: string,
    projectId: string,
    email: string,
    after = 0,
    timeoutMs = 8000,
  ): Promise<AuthEvent> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (this.problems.length > 0) throw new Error(this.problems.join('; '));
      const found = this.seen.filter(
        (e) => e.type === type && e.projectId === projectId && e.data.email === email,
      );
      if (found.length > after) return found[found.length - 1] as AuthEvent;
      if (Date.now() > end) throw new Error(`no ${type} event for ${email}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  count(type: string, projectId: string, pred: (e: AuthEvent) => boolean = () => true): number {
    return new Set(
      this.seen.filter((e) => e.type === type && e.projectId === projectId && pred(e)).map((e) => e.id),
    ).size;
  }

  async close(): Promise<void> {
    for (const s of this.subs) s.unsubscribe();
    await this.nc.drain();
  }
}

export function cookieFrom(headers: Headers): string | undefined {
  for (const c of headers.getSetCookie()) {
    const m = /^refreshToken=([^;]*)/.exec(c);
    if (m) return m[1];
  }
  return undefined;
}

/** After a password change or reset: the old password is refused, the new one logs in. */
export async function expectPasswordChanged(
  call: AuthCall,
  key: string,
  email: string,
  oldPassword: string,
  newPassword: string,
): Promise<void> {
  const login = (password: string) => call('POST', '/api/userAuth/login', { key, body: { email, password } });
  expect((await login(oldPassword)).status).toBe(401);
  expect((await login(newPassword)).status).toBe(200);
}
