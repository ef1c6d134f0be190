// The users of the stack's own NATS (infra.mjs starts it in native mode; docker-compose.yml runs
// the same deploy/nats/dev.conf): one user per service with the permissions of
// deploy/nats/permissions.conf, and the e2e tier's `test` user. Passwords are generated into
// .stack/secrets.env (secrets.mjs) and reach nats-server through its environment; each service
// gets only its own.
import path from 'node:path';
import { ROOT, SERVICES } from './context.mjs';

export const NATS_CONFIG = path.join(ROOT, 'deploy', 'nats', 'dev.conf');
/** Users of the stack's NATS: the six services and the tests. */
export const NATS_USERS = [...SERVICES.map((s) => s.name), 'test'];
export const natsPasswordVar = (user) => `${user.toUpperCase()}_NATS_PASSWORD`;
export const NATS_PASSWORD_VARS = NATS_USERS.map(natsPasswordVar);

/** A service's (or the tests') NATS credentials, as the variables the services read. */
export function natsCredentials(user, secrets) {
  return { NATS_USER: user, NATS_PASSWORD: secrets[natsPasswordVar(user)] };
}
