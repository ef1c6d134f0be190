import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a restart test does to a server, whichever kind it is. */
export interface RestartableServer {
  readonly name: string;
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(downMs: number): Promise<void>;
}

/**
 * A real server binary (nats-server, redis-server, ferretdb) started by a test on its own port
 * and data directory, so the test can stop and restart it under load without touching the
 * servers other processes share.
 */
export class ServerProcess implements RestartableServer {
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

/** How PostgreSQL goes down: `fast` as `pg_ctl restart` does, `immediate` as a crash (recovery at start). */
export type PostgresStopMode = 'fast' | 'immediate';

/**
 * A PostgreSQL server of the test's own (initdb + pg_ctl into a temporary directory, on its own
 * port), so a test can restart or crash it under load without touching the shared one.
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` OS user.
 */
export class PostgresServer implements RestartableServer {
  readonly name = 'postgres';
  private readonly dir: string;
  private readonly owner: { uid: number; gid: number } | undefined;

  constructor(readonly port: number) {
    this.owner = process.getuid?.() === 0 ? postgresOsUser() : undefined;
    this.dir = mkdtempSync(join(tmpdir(), 'baas-pg-'));
    if (this.owner) chownSync(this.dir, this.owner.uid, this.owner.gid);
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  /** The superuser's URL for one database of this server. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** The first start creates the cluster (C.UTF-8: MongoDB's binary string order). */
  async start(): Promise<void> {
    if (!existsSync(this.dataDir))
      await this.run('initdb', [
        '-D',
        this.dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
      ]);
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1`;
    await this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'server.log'),
      '-o',
      options,
      '-w',
      'start',
    ]);
    if (!(await portOpen(this.port))) throw new Error(`postgres did not listen on ${this.port}`);
  }

  async stop(mode: PostgresStopMode = 'fast'): Promise<void> {
    if (!existsSync(join(this.dataDir, 'postmaster.pid'))) return;
    await this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  async restart(downMs: number, mode: PostgresStopMode = 'fast'): Promise<void> {
    await this.stop(mode);
    await new Promise((r) => setTimeout(r, downMs));
    await this.start();
  }

  /** Stops the server and deletes its files. */
  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs a tool without blocking: the test's load keeps running while the server stops and starts. */
  private run(tool: string, args: string[]): Promise<void> {
    const child = spawn(join(postgresBinDir(), tool), args, {
      ...this.owner,
      cwd: this.dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    // 'exit', not 'close': pg_ctl's server outlives it.
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        code === 0
          ? resolve()
          : reject(new Error(`${tool} ${args.join(' ')} failed (${code ?? signal}): ${stderr}`)),
      );
    });
  }
}

/** Where initdb and pg_ctl are: PG_BIN_DIR, Debian's place for PostgreSQL 15, or pg_config's. */
function postgresBinDir(): string {
  for (const dir of [process.env.PG_BIN_DIR, '/usr/lib/postgresql/15/bin']) {
    if (dir && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (r.status === 0 && existsSync(join(r.stdout.trim(), 'pg_ctl'))) return r.stdout.trim();
  throw new Error(
    'pg_ctl not found: install PostgreSQL 15 (apt-get install postgresql-15) or set PG_BIN_DIR',
  );
}

function postgresOsUser(): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const [u, g] = [id('-u'), id('-g')];
  if (u.status !== 0 || g.status !== 0)
    throw new Error('PostgreSQL cannot run as root and there is no `postgres` OS user to run it as');
  return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}
