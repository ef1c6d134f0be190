import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { stackDatabaseUrl, stackEnv, stackSecret, stackServiceNats } from './stack-env';

const ROOT = join(__dirname, '..', '..');

/**
 * Starts one more process of a service (built in dist/) outside the stack, with its own port and
 * environment, so a test can kill it at a chosen moment. Output goes to .stack/logs/test-<name>.log.
 * A data-owning service gets the stack's DATABASE_URL for it (its own database, on the store the
 * stack runs) unless the test passes one.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;

  constructor(
    readonly service: string,
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const stack = stackEnv();
    const databaseUrl = this.env.DATABASE_URL ?? stackDatabaseUrl(this.service, stack);
    // a test may bring its own secrets (and a NATS of its own, without users)
    const secret = (name: string) => this.env[name] ?? stackSecret(name);
    const logDir = join(ROOT, '.stack', 'logs');
    mkdirSync(logDir, { recursive: true });
    const log = createWriteStream(join(logDir, `test-${this.service}-${this.port}.log`), { flags: 'a' });
    this.child = spawn(process.execPath, [join(ROOT, 'services', this.service, 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        // what the stack gives each service: the gateway signs assertions, the others verify them
        ...(this.service === 'gateway'
          ? { GATEWAY_ASSERTION_PRIVATE_KEY: secret('GATEWAY_ASSERTION_PRIVATE_KEY') }
          : {}),
        ...(['auth', 'data', 'storage', 'mail'].includes(this.service)
          ? { GATEWAY_ASSERTION_PUBLIC_KEY: secret('GATEWAY_ASSERTION_PUBLIC_KEY') }
          : {}),
        ...(this.service === 'auth' ? { AUTH_SECRET: secret('AUTH_SECRET') } : {}),
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        // auth and mail seal and open the codes of verification and reset events with it
        ...(this.service === 'auth' || this.service === 'mail'
          ? { MAIL_ENVELOPE_KEY: secret('MAIL_ENVELOPE_KEY') }
          : {}),
        NATS_URL: stack.NATS_URL ?? 'nats://127.0.0.1:4222',
        // its own NATS user, as the stack gives it (a server without users ignores it)
        ...(this.env.NATS_USER === undefined ? stackServiceNats(this.service) : {}),
        REDIS_URL: stack.REDIS_URL ?? 'redis://127.0.0.1:6379',
        AUTH_URL: stack.AUTH_URL ?? 'http://127.0.0.1:8081',
        LOG_LEVEL: 'warn',
        PORT: String(this.port),
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.pipe(log);
    this.child.stderr?.pipe(log);
    await this.waitReady();
  }

  async waitReady(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined)
        throw new Error(
          `${this.service} exited with ${this.child.exitCode}; see .stack/logs/test-${this.service}-${this.port}.log`,
        );
      try {
        const r = await fetch(`${this.url}/readyz`);
        if (r.status === 200) return;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${this.service} on ${this.port} not ready in ${timeoutMs} ms`);
  }

  /** SIGKILL: no shutdown hooks run, exactly like a crash. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  }

  /** SIGTERM, as an orchestrator stops a pod: resolves with how the process ended. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null } | undefined> {
    const c = this.child;
    if (!c || c.exitCode !== null) return undefined;
    return new Promise((resolve) => {
      c.once('exit', (code, signal) => resolve({ code, signal }));
      c.kill('SIGTERM');
    });
  }
}

/** A port nothing listens on right now. */
/** Ports this test file handed out: the kernel may give a port closed a moment ago out again. */
const handedOut = new Set<number>();

/**
 * A port free now and not handed out before in this test file. Asking the kernel twice in a row
 * for "any free port" can return the same one (nothing listens on it yet): two processes of one
 * test then got one port, the second failed to listen, and its readiness probe was answered by
 * the first (the tracing e2e once sent its admin requests to the data service: 401).
 */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

/**
 * A gateway beside the stack's (started, ready): on the stack's services, admin token, NATS and
 * Redis, trusting the loopback proxy as the stack's does; `extra` overrides any of it (other
 * upstreams, a Redis of its own, a limit).
 */
export async function anotherGateway(extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const env = stackEnv();
  const port = await freePort();
  const gw = new ServiceProcess('gateway', port, {
    GATEWAY_PORT: String(port),
    GATEWAY_METRICS_PORT: String(await freePort()),
    PLATFORM_ADMIN_TOKEN: env.PLATFORM_ADMIN_TOKEN ?? '',
    TRUST_PROXY: 'loopback',
    AUTH_URL: env.AUTH_URL ?? 'http://127.0.0.1:8081',
    DATA_URL: env.DATA_URL ?? 'http://127.0.0.1:8082',
    STORAGE_URL: env.STORAGE_URL ?? 'http://127.0.0.1:8083',
    MAIL_URL: env.MAIL_URL ?? 'http://127.0.0.1:8084',
    ...extra,
  });
  await gw.start();
  return gw;
}
