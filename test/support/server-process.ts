import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * A real server binary (nats-server, redis-server, ferretdb) started by a test on its own port
 * and data directory, so the test can stop and restart it under load without touching the
 * servers other processes share.
 */
export class ServerProcess {
  private child: ChildProcess | undefined;

  constructor(
    readonly name: string,
    private readonly bin: string,
    private readonly args: string[],
    readonly port: number,
  ) {}

  async start(): Promise<void> {
    this.child = spawn(this.bin, this.args, { stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    while (!(await portOpen(this.port))) {
      if (this.child.exitCode !== null)
        throw new Error(
          `${this.name} exited with ${this.child.exitCode} (${this.bin} ${this.args.join(' ')})`,
        );
      if (Date.now() > deadline) throw new Error(`${this.name} did not listen on ${this.port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** A clean stop (SIGTERM), as a restart by an operator or an orchestrator does. */
  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    });
  }

  async restart(downMs: number): Promise<void> {
    await this.stop();
    await new Promise((r) => setTimeout(r, downMs));
    await this.start();
  }
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(500);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(false));
    s.connect(port, '127.0.0.1');
  });
}

/** Where a server binary is: PATH, the usual system places, or the project's tools cache. */
export function findBinary(name: string): string {
  const tools = join(process.env.BAAS_TOOLS_DIR ?? join(homedir(), '.cache', 'baas-tools'), 'bin', name);
  for (const candidate of [tools, `/usr/sbin/${name}`, `/usr/bin/${name}`, `/usr/local/bin/${name}`]) {
    if (spawnSync('test', ['-x', candidate]).status === 0) return candidate;
  }
  const which = spawnSync('which', [name], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error(
    `${name} not found: run \`bash scripts/install-infra.sh\` (it installs ferretdb, nats-server and redis-server)`,
  );
}
