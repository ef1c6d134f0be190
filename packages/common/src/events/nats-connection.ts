import { readFileSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { credsAuthenticator, type ConnectionOptions, type NatsConnection } from '@nats-io/nats-core';
import { ConfigError } from '../config';
import type { Logger } from '../logger';

/** The NATS part of a process's config (`natsEnvShape`). */
export interface NatsSettings {
  NATS_URL: string;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_CREDS_FILE?: string | undefined;
  NATS_TLS_CA_FILE?: string | undefined;
  NATS_TLS_CERT_FILE?: string | undefined;
  NATS_TLS_KEY_FILE?: string | undefined;
}

/** What a connection authenticates with and how it protects the link. */
export interface NatsClientOptions {
  user?: string;
  pass?: string;
  /** A decentralized-auth credentials file (JWT and nkey seed), read once here. */
  credsFile?: string;
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
  /**
   * Where replies (requests, JetStream API answers, pulled messages) come back. A service uses
   * `_INBOX.<service>`, the only inbox its NATS user may subscribe to, so no other service can
   * read its replies or the events it pulls.
   */
  inboxPrefix?: string;
}

/**
 * The connection options of a service from its parsed config: a user and password, or a
 * credentials file, and TLS. Combinations that cannot work are refused at boot, all at once.
 */
export function natsClientOptions(config: NatsSettings, service: string): NatsClientOptions {
  const problems: string[] = [];
  if (config.NATS_PASSWORD && !config.NATS_USER) problems.push('NATS_PASSWORD: set NATS_USER too');
  if (config.NATS_USER && !config.NATS_PASSWORD)
    problems.push('NATS_USER: set NATS_PASSWORD (or NATS_PASSWORD_FILE) too');
  if (config.NATS_CREDS_FILE && config.NATS_USER)
    problems.push('NATS_CREDS_FILE: use either a credentials file or NATS_USER/NATS_PASSWORD, not both');
  if (Boolean(config.NATS_TLS_CERT_FILE) !== Boolean(config.NATS_TLS_KEY_FILE))
    problems.push(
      'NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE: a client certificate needs its key, and the reverse',
    );
  if (problems.length) throw new ConfigError(problems);
  const opts: NatsClientOptions = { inboxPrefix: `_INBOX.${service}` };
  if (config.NATS_USER && config.NATS_PASSWORD) {
    opts.user = config.NATS_USER;
    opts.pass = config.NATS_PASSWORD;
  }
  if (config.NATS_CREDS_FILE) opts.credsFile = config.NATS_CREDS_FILE;
  if (config.NATS_TLS_CA_FILE || config.NATS_TLS_CERT_FILE) {
    opts.tls = {
      ...(config.NATS_TLS_CA_FILE ? { caFile: config.NATS_TLS_CA_FILE } : {}),
      ...(config.NATS_TLS_CERT_FILE ? { certFile: config.NATS_TLS_CERT_FILE } : {}),
      ...(config.NATS_TLS_KEY_FILE ? { keyFile: config.NATS_TLS_KEY_FILE } : {}),
    };
  }
  return opts;
}

export async function connectNats(
  url: string,
  name: string,
  logger: Logger,
  client: NatsClientOptions = {},
): Promise<NatsConnection> {
  const options: ConnectionOptions = {
    servers: url.split(','),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // Without this every request (each JetStream publish is one) captures a stack trace up
    // front for the error it might become; the errors still say what failed.
    noAsyncTraces: true,
  };
  if (client.user !== undefined) options.user = client.user;
  if (client.pass !== undefined) options.pass = client.pass;
  if (client.credsFile) options.authenticator = credsAuthenticator(readFileSync(client.credsFile));
  if (client.tls) options.tls = client.tls;
  if (client.inboxPrefix) options.inboxPrefix = client.inboxPrefix;
  // transport-node's declarations reach nats-core through a subpath export that classic module
  // resolution does not follow, so the connection's type is stated here.
  const nc: NatsConnection = (await connect(options)) as NatsConnection;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error')
        logger.warn({ status: s.type, ...('error' in s ? { err: s.error } : {}) }, 'nats status');
    }
  })();
  return nc;
}
