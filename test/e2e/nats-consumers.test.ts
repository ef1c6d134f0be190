import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connectNats, createLogger, EVENTS_STREAM } from '@baas/common';
import { stackEnv, stackNatsAuth } from '../support/stack-env';

/**
 * The services' durable consumers take only the event types they handle. A consumer of several
 * types needs nats-server 2.10 (filter_subjects); on 2.9 it had to take every event, so every
 * document write cost the mail service a delivery and an ack (the stack ran Debian's 2.9 until
 * install-infra built 2.11). A consumer created on an older server is changed in place.
 */
const env = stackEnv();
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectNats(
    env.NATS_URL ?? 'nats://127.0.0.1:4222',
    'nats-consumers-e2e',
    createLogger('t', 'silent'),
    stackNatsAuth(env),
  );
});
afterAll(async () => nc?.drain());

describe("the stack's NATS and the services' consumers", () => {
  it('runs nats-server 2.10 or later', () => {
    const [major, minor] = (nc.info?.version ?? '0.0').split('.').map(Number);
    expect({
      version: nc.info?.version,
      supportsFilterSubjects: major! > 2 || (major === 2 && minor! >= 10),
    }).toEqual({
      version: nc.info?.version,
      supportsFilterSubjects: true,
    });
  });

  it('no service consumer takes every event', async () => {
    const jsm = await jetstreamManager(nc);
    const filters: Record<string, string[]> = {};
    for await (const c of jsm.consumers.list(EVENTS_STREAM)) {
      const cfg = c.config;
      filters[c.name] = cfg.filter_subjects?.length ? cfg.filter_subjects : [cfg.filter_subject ?? ''];
    }
    expect(filters['mail-auth-emails']?.sort()).toEqual([
      'baas.events.auth.password_reset_requested',
      'baas.events.auth.verification_requested',
    ]);
    expect(filters['mail-console-emails']?.sort()).toEqual([
      'baas.events.console.invitation_requested',
      'baas.events.console.password_reset_requested',
    ]);
    const catchAll = Object.entries(filters).filter(([, f]) => f.some((s) => s === '' || s.endsWith('>')));
    expect(catchAll).toEqual([]);
  });
});
