import { execFileSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { assertionPrivateKey, assertionPublicKey } from '@baas/common';

/**
 * deploy/services.json is the one source of the deployment's facts (names, ports, databases,
 * roles); scripts/stack.mjs reads it, and docker-compose.yml and the kustomize base must follow it.
 */
const ROOT = join(__dirname, '..', '..');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

interface ServiceFacts {
  name: string;
  port: number;
  urlVar: string;
  ownsDatabase: boolean;
  database?: string;
  role?: string;
  databaseUrlVar?: string;
  passwordVar?: string;
  /** node's own options, before the main file (the same in compose, kustomize and npm run up). */
  nodeArgs?: string[];
}

const services = (JSON.parse(read('deploy', 'services.json')) as { services: ServiceFacts[] }).services;
const dataServices = services.filter((s) => s.ownsDatabase);
const names = services.map((s) => s.name);
const mainCommand = (s: ServiceFacts) => ['node', ...(s.nodeArgs ?? []), `services/${s.name}/dist/main.js`];

/* eslint-disable @typescript-eslint/no-unsafe-return -- YAML documents are walked untyped: the
   expectations below check their shape */
type Doc = any;

function yamlDocs(...p: string[]): Doc[] {
  return parseAllDocuments(read(...p), { merge: true }).map((d) => d.toJS({ maxAliasCount: -1 }));
}

function envOf(container: Doc): Record<string, Doc> {
  return Object.fromEntries((container.env ?? []).map((e: Doc) => [e.name, e.value ?? e.valueFrom]));
}

/** A kustomize env file (KEY=VALUE lines, # comments), as the configMapGenerator reads it. */
function envFile(...p: string[]): Record<string, string> {
  return Object.fromEntries(
    read(...p)
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The base's shared settings: the generated ConfigMap baas-config. */
const baseConfig = (): Record<string, string> => {
  const kustomization: Doc = parse(read('deploy', 'k8s', 'base', 'kustomization.yaml'));
  const gen = (kustomization.configMapGenerator as Doc[]).find((g) => g.name === 'baas-config');
  return Object.assign({}, ...(gen.envs as string[]).map((f) => envFile('deploy', 'k8s', 'base', f)));
};

describe('deploy/services.json', () => {
  it('names six services, the gateway last, with distinct ports', () => {
    expect(names).toEqual(['auth', 'data', 'storage', 'mail', 'janitor', 'gateway']);
    expect(new Set(services.map((s) => s.port)).size).toBe(services.length);
  });

  it('gives each data-owning service a role and a database of its own, named baas_<service>', () => {
    expect(dataServices.map((s) => s.name)).toEqual(['auth', 'data', 'storage', 'mail']);
    for (const s of dataServices) {
      expect(s).toMatchObject({
        database: `baas_${s.name}`,
        role: `baas_${s.name}`,
        databaseUrlVar: `${s.name.toUpperCase()}_DATABASE_URL`,
        passwordVar: `${s.name.toUpperCase()}_DB_PASSWORD`,
      });
    }
    for (const s of services.filter((x) => !x.ownsDatabase)) {
      expect([s.database, s.role, s.databaseUrlVar]).toEqual([undefined, undefined, undefined]);
    }
  });
});

describe('docker-compose.yml follows deploy/services.json', () => {
  const compose: Doc = parse(read('docker-compose.yml'), { merge: true, maxAliasCount: -1 });
  // logLevel: compose's !override tag is unknown to the parser; the value under it is a plain map
  const mongo: Doc = parse(read('docker-compose.mongodb.yml'), { merge: true, logLevel: 'error' });

  it.each(services)('$name: service, PORT and published port', (s) => {
    const svc = compose.services[s.name];
    expect(svc).toBeDefined();
    expect(svc.command).toEqual(mainCommand(s));
    expect(svc.environment.PORT).toBe(String(s.port));
    expect(svc.ports.map((p: string) => p.split(':').pop())).toEqual([String(s.port)]);
  });

  it.each(services)('$name: DATABASE_URL names its own database as its own role, or is absent', (s) => {
    const pg = compose.services[s.name].environment.DATABASE_URL;
    const mg = mongo.services[s.name]?.environment?.DATABASE_URL;
    if (!s.ownsDatabase) {
      expect([pg, mg]).toEqual([undefined, undefined]);
      return;
    }
    expect(pg).toBe(`postgres://${s.role}:\${${s.passwordVar}:-}@postgres:5432/${s.database}`);
    // data keeps one database per project, so it has a MongoDB server of its own (mongo-data)
    const host = s.name === 'data' ? 'mongo-data' : 'mongo';
    expect(mg).toBe(`mongodb://${s.role}:\${${s.passwordVar}:-}@${host}:27017/${s.database}`);
    expect(Object.keys(compose.services[s.name].depends_on)).toContain('postgres-init');
    expect(Object.keys(mongo.services[s.name].depends_on)).toContain('mongo-init');
  });

  it('MongoDB: mongo-init creates every data-owning service’s user, with its password, on authenticating servers', () => {
    const init = mongo.services['mongo-init'];
    for (const s of dataServices) expect(init.environment[s.passwordVar!]).toBe(`\${${s.passwordVar}:-}`);
    expect(init.volumes).toContain('./deploy/mongodb:/init:ro');
    const script = read('deploy/mongodb/init-service-users.js');
    for (const s of dataServices) expect(script).toContain(s.name === 'data' ? `'${s.role}'` : `'${s.name}'`);
    for (const server of ['mongo', 'mongo-data']) {
      expect(mongo.services[server].environment.MONGO_INITDB_ROOT_USERNAME).toBe('root');
      expect(mongo.services[server].command).toContain('--noscripting');
    }
  });

  it('the S3 server keeps connections alive (versitygw closes each one without --keep-alive)', () => {
    const command: string[] = compose.services.s3.command;
    const backend = command.indexOf('posix');
    // global flags go before the backend subcommand
    expect(command.indexOf('--keep-alive')).toBeGreaterThan(-1);
    expect(command.indexOf('--keep-alive')).toBeLessThan(backend);
  });

  it('npm run up runs each service with the command line compose and kustomize give it', () => {
    // scripts/stack is ESM: ask a child node for the command lines the stack starts
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(ROOT, 'scripts/stack/context.mjs'))});` +
          `process.stdout.write(JSON.stringify(m.SERVICES.map((s) => ['node', ...m.serviceCommand(s)])))`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual(services.map(mainCommand));
  });

  it('auth and the gateway run with one V8 worker thread (docs/operations.md: idle RSS)', () => {
    for (const name of ['auth', 'gateway'])
      expect(services.find((s) => s.name === name)!.nodeArgs).toContain('--v8-pool-size=1');
  });

  it('the data service runs without allocation-site pretenuring (docs/operations.md: GC pauses)', () => {
    expect(services.find((s) => s.name === 'data')!.nodeArgs).toContain('--no-allocation-site-pretenuring');
  });

  it('the image runs the gateway by default, with its node options', () => {
    const cmd = read('Dockerfile')
      .split('\n')
      .filter((l) => l.startsWith('CMD '))
      .pop()!;
    expect(JSON.parse(cmd.slice(4))).toEqual(mainCommand(services.find((s) => s.name === 'gateway')!));
  });

  it('MongoDB in Docker mode: the host URLs npm run up writes name each service’s user, as the containers do', () => {
    // scripts/stack is ESM: ask a child node for what docker mode writes into .stack/env
    const secrets = Object.fromEntries(dataServices.map((s) => [s.passwordVar!, `pw/${s.name}`]));
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(ROOT, 'scripts/stack/docker.mjs'))});` +
          `process.stdout.write(JSON.stringify(m.mongoHostDatabases({ mongoPort: 1, mongoDataPort: 2 }, ${JSON.stringify({ ...secrets, MONGO_ROOT_PASSWORD: 'r:t' })})))`,
      ],
      { encoding: 'utf8' },
    );
    const db = JSON.parse(out) as { urls: Record<string, string>; mongoUrl: string };
    for (const s of dataServices) {
      const port = s.name === 'data' ? 2 : 1;
      expect(db.urls[s.name]).toBe(
        `mongodb://${s.role}:pw%2F${s.name}@127.0.0.1:${port}/${s.database}?authSource=${s.database}`,
      );
    }
    expect(db.mongoUrl).toBe('mongodb://root:r%3At@127.0.0.1:1/?authSource=admin');
    expect(mongo.services['mongo-data'].ports[0]).toContain('MONGO_DATA_HOST_PORT');
  });

  it('creates exactly the data-owning services’ roles and databases, with their passwords', () => {
    const init = compose.services['postgres-init'];
    expect(init.command).toEqual(dataServices.map((s) => s.name));
    for (const s of dataServices) expect(init.environment[s.passwordVar!]).toBe(`\${${s.passwordVar}:-}`);
  });

  it('points the gateway at every other service', () => {
    const env = compose.services.gateway.environment;
    for (const s of services.filter((x) => x.name !== 'gateway')) {
      expect(env[s.urlVar]).toBe(`http://${s.name}:${s.port}`);
    }
  });
});

describe('deploy/k8s/base follows deploy/services.json', () => {
  const kustomization: Doc = parse(read('deploy', 'k8s', 'base', 'kustomization.yaml'));
  const docs: Doc[] = (kustomization.resources as string[]).flatMap((f) =>
    yamlDocs('deploy', 'k8s', 'base', f),
  );
  const find = (kind: string, name: string): Doc =>
    docs.find((d) => d.kind === kind && d.metadata.name === name);
  const config = baseConfig();

  it.each(services)('$name: Deployment, container port, PORT and Service port', (s) => {
    const container = find('Deployment', s.name)!.spec.template.spec.containers[0];
    expect(container.args).toEqual(mainCommand(s));
    expect(container.ports[0].containerPort).toBe(s.port);
    expect(envOf(container).PORT).toBe(String(s.port));
    expect(find('Service', s.name)!.spec.ports[0].port).toBe(s.port);
  });

  it.each(services)('$name: DATABASE_URL from its own Secret, set up by a Job, or none', (s) => {
    const pod = find('Deployment', s.name)!.spec.template.spec;
    const env = envOf(pod.containers[0]);
    const job = find('Job', `migrate-${s.name}`);
    if (!s.ownsDatabase) {
      expect([env.DATABASE_URL, job, pod.initContainers]).toEqual([undefined, undefined, undefined]);
      return;
    }
    const secretRef = { secretKeyRef: { name: `baas-${s.name}-database`, key: 'DATABASE_URL' } };
    expect(env.DATABASE_URL).toEqual(secretRef);
    expect(env.DB_MIGRATE_ON_BOOT).toBe('false');
    const migrate = job!.spec.template.spec.containers[0];
    // the service's setup: migrations or indexes, and the streams, as its own role and NATS user
    expect(migrate.args).toEqual(['node', `services/${s.name}/dist/setup.js`]);
    expect(envOf(migrate).DATABASE_URL).toEqual(secretRef);
    expect(envOf(migrate).NATS_USER).toBe(s.name);
    expect(envOf(migrate).NATS_PASSWORD).toEqual({
      secretKeyRef: { name: `baas-${s.name}-nats`, key: 'NATS_PASSWORD' },
    });
    expect(existsSync(join(ROOT, 'services', s.name, 'src', 'setup.ts'))).toBe(true);
    const wait = pod.initContainers[0];
    expect(wait.args.join(' ')).toContain(`migrate-cli.js ${s.name} --check`);
    expect(envOf(wait).DATABASE_URL).toEqual(secretRef);
  });

  it('sets no database for everyone in the shared ConfigMap', () => {
    expect(Object.keys(config).filter((k) => /DATABASE_URL|MONGO/.test(k))).toEqual([]);
  });

  it('points the gateway at every other service', () => {
    for (const s of services.filter((x) => x.name !== 'gateway')) {
      expect(config[s.urlVar]).toBe(`http://${s.name}:${s.port}`);
    }
  });

  it('shows one example Secret per data-owning service, naming its database and role', () => {
    const secrets = yamlDocs('deploy', 'k8s', 'base', 'secret.example.yaml');
    for (const s of dataServices) {
      const secret = secrets.find((d) => d.metadata.name === `baas-${s.name}-database`);
      const url = new URL(secret.stringData.DATABASE_URL as string);
      expect([url.username, url.pathname]).toEqual([s.role, `/${s.database}`]);
    }
  });
});

describe('deploy/k8s/overlays/dev follows deploy/services.json', () => {
  const kustomization: Doc = parse(read('deploy', 'k8s', 'overlays', 'dev', 'kustomization.yaml'));
  const generated = (name: string): string[] =>
    (kustomization.secretGenerator as Doc[]).find((g) => g.name === name)!.literals as string[];

  it('creates the roles and databases with the same script as docker-compose.yml and npm run up', () => {
    expect(read('deploy', 'k8s', 'overlays', 'dev', 'postgres', 'init-service-databases.sh')).toBe(
      read('deploy', 'postgres', 'init-service-databases.sh'),
    );
    const job = yamlDocs('deploy', 'k8s', 'overlays', 'dev', 'postgres.yaml').find(
      (d) => d.kind === 'Job' && d.metadata.name === 'postgres-init',
    );
    expect(job.spec.template.spec.containers[0].command.join(' ')).toContain(
      `init-service-databases.sh ${dataServices.map((s) => s.name).join(' ')}`,
    );
  });

  it.each(dataServices)('$name: its Secret’s DATABASE_URL uses its role, password and database', (s) => {
    const [literal] = generated(`baas-${s.name}-database`);
    const url = new URL(literal!.replace(/^DATABASE_URL=/, ''));
    const password = generated('baas-postgres')
      .find((l) => l.startsWith(`${s.passwordVar}=`))!
      .split('=')[1];
    expect([url.username, url.password, url.host, url.pathname]).toEqual([
      s.role,
      password,
      'postgres:5432',
      `/${s.database}`,
    ]);
  });
});

describe('MAIL_ENVELOPE_KEY reaches auth and mail only', () => {
  const holders = ['auth', 'mail'];
  const compose: Doc = parse(read('docker-compose.yml'), { merge: true, maxAliasCount: -1 });
  const base: Doc[] = (
    parse(read('deploy', 'k8s', 'base', 'kustomization.yaml')).resources as string[]
  ).flatMap((f) => yamlDocs('deploy', 'k8s', 'base', f));

  it.each(services)('docker-compose: $name', (s) => {
    const value = compose.services[s.name].environment.MAIL_ENVELOPE_KEY;
    if (holders.includes(s.name)) expect(value).toMatch(/^\$\{MAIL_ENVELOPE_KEY:\?/);
    else expect(value).toBeUndefined();
  });

  it.each(services)('kustomize base: $name mounts the Secret baas-mail-envelope, or not at all', (s) => {
    const pod = base.find((d) => d.kind === 'Deployment' && d.metadata.name === s.name)!.spec.template.spec;
    const env = envOf(pod.containers[0]);
    const volumes = (pod.volumes ?? []).filter((v: Doc) => v.secret?.secretName === 'baas-mail-envelope');
    if (!holders.includes(s.name)) {
      expect([env.MAIL_ENVELOPE_KEY, env.MAIL_ENVELOPE_KEY_FILE, volumes]).toEqual([
        undefined,
        undefined,
        [],
      ]);
      return;
    }
    expect(volumes).toHaveLength(1);
    const mount = pod.containers[0].volumeMounts.find((m: Doc) => m.name === volumes[0].name);
    expect(mount.readOnly).toBe(true);
    expect(env.MAIL_ENVELOPE_KEY_FILE).toBe(`${mount.mountPath}/MAIL_ENVELOPE_KEY`);
    expect(env.MAIL_ENVELOPE_KEY).toBeUndefined();
  });

  it('is not in the Secret every service reads', () => {
    const shared = yamlDocs('deploy', 'k8s', 'base', 'secret.example.yaml').find(
      (d) => d.metadata.name === 'baas-secrets',
    );
    expect(Object.keys(shared.stringData)).not.toContain('MAIL_ENVELOPE_KEY');
  });
});

describe('NATS: one user per service, each permitted only what it does (issue 12 item 12)', () => {
  const generated = execFileSync(process.execPath, [join(ROOT, 'scripts', 'stack', 'nats-permissions.mjs')], {
    encoding: 'utf8',
  });
  const compose: Doc = parse(read('docker-compose.yml'), { merge: true, maxAliasCount: -1 });
  const base: Doc[] = (
    parse(read('deploy', 'k8s', 'base', 'kustomization.yaml')).resources as string[]
  ).flatMap((f) => yamlDocs('deploy', 'k8s', 'base', f));
  const passwordVar = (user: string) => `${user.toUpperCase()}_NATS_PASSWORD`;
  const userLine = (user: string) =>
    `{ user: ${user}, password: $${passwordVar(user)}, permissions: $${user.toUpperCase()}_PERMISSIONS }`;

  it('deploy/nats/permissions.conf and its k8s copy are the generator’s output', () => {
    expect(read('deploy', 'nats', 'permissions.conf')).toBe(generated);
    expect(read('deploy', 'k8s', 'base', 'nats', 'permissions.conf')).toBe(generated);
    expect(read('deploy', 'k8s', 'base', 'nats', 'nats.conf')).toBe(read('deploy', 'nats', 'nats.conf'));
  });

  it('every durable consumer in the services’ code is one the permissions name', () => {
    const sources = [
      'auth/src/main.ts',
      'data/src/consumers/project-deleted.ts',
      'storage/src/consumers.ts',
      'mail/src/consumers.ts',
    ];
    const durables = sources.flatMap((f) =>
      [...read('services', f).matchAll(/(?:durable: |_DURABLE = |const durable = )'([a-z-]+)'/g)].map(
        (m) => m[1]!,
      ),
    );
    expect(durables.length).toBeGreaterThanOrEqual(6);
    for (const d of durables) {
      const service = d.split('-')[0]!;
      // the service's own block allows pulling from it
      const block = generated.slice(generated.indexOf(`${service.toUpperCase()}_PERMISSIONS = {`));
      expect(block.slice(0, block.indexOf('\n}\n'))).toContain(
        `"$JS.API.CONSUMER.MSG.NEXT.BAAS_EVENTS.${d}"`,
      );
    }
  });

  it.each(['nats.conf', 'dev.conf'])('deploy/nats/%s: one user per service, no anonymous access', (file) => {
    const conf = read('deploy', 'nats', file);
    for (const s of services) expect(conf).toContain(userLine(s.name));
    expect(conf).toContain('include ./permissions.conf');
    expect(conf).not.toMatch(/^\s*no_auth_user/m);
    // the e2e tier's user exists in the development configuration only
    if (file === 'dev.conf') expect(conf).toContain(userLine('test'));
    else expect(conf).not.toMatch(/user: test/);
  });

  it('only the janitor may publish janitor commands', () => {
    const publishers = [...generated.matchAll(/^([A-Z]+)_PERMISSIONS = \{[\s\S]*?\n\}/gm)]
      .filter((m) => /allow = \[[^\]]*"baas\.janitor\./.test(m[0].split('subscribe')[0]!))
      .map((m) => m[1]);
    expect(publishers).toEqual(['JANITOR']);
  });

  it('docker-compose: the nats service runs dev.conf with every password; each service has its own user only', () => {
    const nats = compose.services.nats;
    expect(nats.command.join(' ')).toContain('-c /etc/nats/dev.conf');
    expect(nats.volumes).toContain('./deploy/nats:/etc/nats:ro');
    for (const user of [...names, 'test'])
      expect(nats.environment[passwordVar(user)]).toMatch(new RegExp(`^\\$\\{${passwordVar(user)}:\\?`));
    for (const s of services) {
      const env = compose.services[s.name].environment;
      expect(env.NATS_USER).toBe(s.name);
      expect(env.NATS_PASSWORD).toMatch(new RegExp(`^\\$\\{${passwordVar(s.name)}:\\?`));
      const others = names.filter((n) => n !== s.name).map(passwordVar);
      expect(JSON.stringify(env)).not.toMatch(new RegExp(others.join('|')));
    }
  });

  it.each(services)('kustomize base: $name reads NATS_PASSWORD from its own Secret', (s) => {
    const env = envOf(
      base.find((d) => d.kind === 'Deployment' && d.metadata.name === s.name)!.spec.template.spec
        .containers[0],
    );
    expect(env.NATS_USER).toBe(s.name);
    expect(env.NATS_PASSWORD).toEqual({
      secretKeyRef: { name: `baas-${s.name}-nats`, key: 'NATS_PASSWORD' },
    });
    const example = yamlDocs('deploy', 'k8s', 'base', 'secret.example.yaml').find(
      (d) => d.metadata.name === `baas-${s.name}-nats`,
    );
    expect(Object.keys(example.stringData)).toEqual(['NATS_PASSWORD']);
  });

  it('kustomize: base generates the NATS config; the dev overlay runs it with each service’s password', () => {
    const kustomization: Doc = parse(read('deploy', 'k8s', 'base', 'kustomization.yaml'));
    const gen = (kustomization.secretGenerator as Doc[]).find((g) => g.name === 'baas-nats-config');
    expect(gen.files).toEqual(['nats/nats.conf', 'nats/permissions.conf']);
    const dev: Doc = parse(read('deploy', 'k8s', 'overlays', 'dev', 'kustomization.yaml'));
    expect(dev.resources).toContain('nats.yaml');
    const deployment = yamlDocs('deploy', 'k8s', 'overlays', 'dev', 'nats.yaml').find(
      (d) => d.kind === 'Deployment',
    );
    const container = deployment.spec.template.spec.containers[0];
    expect(container.args.join(' ')).toContain('-c /etc/nats/nats.conf');
    const env = envOf(container);
    for (const s of services) {
      expect(env[passwordVar(s.name)]).toEqual({
        secretKeyRef: { name: `baas-${s.name}-nats`, key: 'NATS_PASSWORD' },
      });
      const literals = (dev.secretGenerator as Doc[]).find((g) => g.name === `baas-${s.name}-nats`).literals;
      // letters and digits, starting with a letter: nats-server reads it as a configuration value
      expect(literals).toEqual([expect.stringMatching(/^NATS_PASSWORD=[a-z][a-z0-9]+$/)]);
    }
    expect(deployment.spec.template.spec.volumes[0].secret.secretName).toBe('baas-nats-config');
  });
});

/**
 * Issue 12 item 2: each secret reaches only the services that need it. The gateway alone holds
 * what signs assertions (and the admin token), auth alone AUTH_SECRET, storage alone the S3
 * credentials; the services behind the gateway get its public key. On Kubernetes each is a
 * Secret of its own, mounted as files (NAME_FILE) into those Deployments only.
 */
describe('each secret reaches only the services that need it', () => {
  const verifiers = ['auth', 'data', 'storage', 'mail'];
  const table = [
    { variable: 'GATEWAY_ASSERTION_PRIVATE_KEY', secret: 'baas-gateway-keys', holders: ['gateway'] },
    { variable: 'PLATFORM_ADMIN_TOKEN', secret: 'baas-gateway-keys', holders: ['gateway'] },
    { variable: 'AUTH_SECRET', secret: 'baas-auth-secret', holders: ['auth'] },
    { variable: 'S3_SECRET_ACCESS_KEY', secret: 'baas-storage-s3', holders: ['storage'] },
    { variable: 'S3_ACCESS_KEY_ID', secret: 'baas-storage-s3', holders: ['storage'] },
    { variable: 'GATEWAY_ASSERTION_PUBLIC_KEY', secret: 'baas-assertion-public-key', holders: verifiers },
  ];
  const cases = table.flatMap((t) =>
    services.map((s) => ({ ...t, service: s.name, holds: t.holders.includes(s.name) })),
  );
  const compose: Doc = parse(read('docker-compose.yml'), { merge: true, maxAliasCount: -1 });
  const base: Doc[] = (
    parse(read('deploy', 'k8s', 'base', 'kustomization.yaml')).resources as string[]
  ).flatMap((f) => yamlDocs('deploy', 'k8s', 'base', f));
  const examples = yamlDocs('deploy', 'k8s', 'base', 'secret.example.yaml');
  const overlay: Doc = parse(read('deploy', 'k8s', 'overlays', 'dev', 'kustomization.yaml'));
  const generated = (name: string): string[] =>
    ((overlay.secretGenerator as Doc[]).find((g) => g.name === name)?.literals ?? []) as string[];

  it.each(cases)('docker-compose: $variable for $service: $holds', ({ variable, service, holds }) => {
    const value = compose.services[service].environment[variable];
    if (holds) expect(value).toMatch(new RegExp(`^\\$\\{${variable}:[?-]`));
    else expect(value).toBeUndefined();
  });

  it.each(cases)('kustomize base: $variable for $service: $holds', ({ variable, secret, service, holds }) => {
    const pod = base.find((d) => d.kind === 'Deployment' && d.metadata.name === service)!.spec.template.spec;
    const containers: Doc[] = [...pod.containers, ...(pod.initContainers ?? [])];
    const volumes = (pod.volumes ?? []).filter((v: Doc) => v.secret?.secretName === secret);
    for (const c of containers) {
      expect(envOf(c)[variable]).toBeUndefined();
      const refs = (c.envFrom ?? []).map((e: Doc) => e.secretRef?.name);
      expect(refs).not.toContain(secret);
    }
    const env = envOf(pod.containers[0]);
    if (!holds) {
      expect([env[`${variable}_FILE`], volumes]).toEqual([undefined, []]);
      return;
    }
    expect(volumes).toHaveLength(1);
    const mount = pod.containers[0].volumeMounts.find((m: Doc) => m.name === volumes[0].name);
    expect(mount.readOnly).toBe(true);
    expect(env[`${variable}_FILE`]).toBe(`${mount.mountPath}/${variable}`);
  });

  it.each(table)(
    '$variable: its own Secret ($secret) in the example and the dev overlay, not the shared one',
    ({ variable, secret }) => {
      const example = examples.find((d) => d.metadata.name === secret);
      expect(Object.keys(example.stringData)).toContain(variable);
      expect(generated(secret).some((l) => l.startsWith(`${variable}=`))).toBe(true);
      const shared = examples.find((d) => d.metadata.name === 'baas-secrets');
      expect(Object.keys(shared.stringData ?? {})).not.toContain(variable);
      expect(generated('baas-secrets').some((l) => l.startsWith(`${variable}=`))).toBe(false);
    },
  );

  it('the dev overlay’s assertion keys are one Ed25519 pair', () => {
    const literal = (secret: string, variable: string) =>
      generated(secret)
        .find((l) => l.startsWith(`${variable}=`))!
        .slice(variable.length + 1);
    const privateKey = assertionPrivateKey(literal('baas-gateway-keys', 'GATEWAY_ASSERTION_PRIVATE_KEY'));
    const publicKey = assertionPublicKey(
      literal('baas-assertion-public-key', 'GATEWAY_ASSERTION_PUBLIC_KEY'),
    );
    expect(createPublicKey(privateKey).equals(publicKey)).toBe(true);
  });

  it('the shared symmetric INTERNAL_ASSERTION_SECRET is gone from every deployment file', () => {
    const files = [
      ['docker-compose.yml'],
      ['docker-compose.mongodb.yml'],
      ['deploy', 'k8s', 'overlays', 'dev', 'kustomization.yaml'],
      ...(parse(read('deploy', 'k8s', 'base', 'kustomization.yaml')).resources as string[]).map((f) => [
        'deploy',
        'k8s',
        'base',
        f,
      ]),
      ['deploy', 'k8s', 'base', 'secret.example.yaml'],
    ];
    for (const f of files) expect(read(...f)).not.toContain('INTERNAL_ASSERTION_SECRET');
  });
});

/**
 * Issue 13: one base shape for every Deployment (defaults/), the gateway's metrics port, OTLP
 * egress and the tracing/stream settings in the ConfigMap.
 */
describe('deploy/k8s/base: the shared shape and what observability needs', () => {
  const kustomization: Doc = parse(read('deploy', 'k8s', 'base', 'kustomization.yaml'));
  const docs: Doc[] = (kustomization.resources as string[]).flatMap((f) =>
    yamlDocs('deploy', 'k8s', 'base', f),
  );
  const deployment = (name: string): Doc =>
    docs.find((d) => d.kind === 'Deployment' && d.metadata.name === name);
  const targetNames = (path: string): string[] => {
    const patch = (kustomization.patches as Doc[]).find((p) => p.path === path);
    const m = /app\.kubernetes\.io\/name in \(([^)]*)\)/.exec(patch.target.labelSelector as string);
    return m![1]!.split(',').sort();
  };

  it('applies defaults/deployment.yaml to every service and wait-for-migrations to every data owner', () => {
    expect(targetNames('defaults/deployment.yaml')).toEqual([...names].sort());
    expect(targetNames('defaults/wait-for-migrations.yaml')).toEqual(dataServices.map((s) => s.name).sort());
  });

  it.each(services)('$name: the Deployment holds no copy of the shared shape', (s) => {
    const pod = deployment(s.name).spec.template.spec;
    const c = pod.containers[0];
    for (const key of [
      'startupProbe',
      'readinessProbe',
      'livenessProbe',
      'lifecycle',
      'securityContext',
      'envFrom',
    ])
      expect(c[key]).toBeUndefined();
    for (const key of ['securityContext', 'automountServiceAccountToken', 'topologySpreadConstraints'])
      expect(pod[key]).toBeUndefined();
    // every container writes only to its /tmp emptyDir (read-only root filesystem)
    expect(c.volumeMounts.find((m: Doc) => m.mountPath === '/tmp')).toBeDefined();
  });

  it('names NATS_STREAM_REPLICAS and the OpenTelemetry settings in the ConfigMap (tracing off by default)', () => {
    const config = baseConfig();
    expect(config.NATS_STREAM_REPLICAS).toBe('1');
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('');
    expect(config.OTEL_TRACES_SAMPLER).toBe('parentbased_traceidratio');
    expect(Number(config.OTEL_TRACES_SAMPLER_ARG)).toBeGreaterThan(0);
  });

  it('declares the gateway’s metrics port (GATEWAY_METRICS_PORT) and lets the monitoring namespace scrape it', () => {
    const c = deployment('gateway').spec.template.spec.containers[0];
    const metrics = c.ports.find((p: Doc) => p.name === 'metrics');
    expect(String(metrics.containerPort)).toBe(envOf(c).GATEWAY_METRICS_PORT);
    const scrape = docs.find((d) => d.kind === 'NetworkPolicy' && d.metadata.name === 'allow-metrics-scrape');
    expect(scrape.spec.ingress[0].ports.map((p: Doc) => p.port)).toEqual(['http', 'metrics']);
    // the public Service exposes only the public port
    const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'gateway');
    expect(service.spec.ports.map((p: Doc) => p.targetPort)).toEqual(['http']);
  });

  it('allows egress to an OpenTelemetry collector (OTLP 4317/4318)', () => {
    const egress = docs.find(
      (d) => d.kind === 'NetworkPolicy' && d.metadata.name === 'allow-egress-dns-and-dependencies',
    );
    const ports = egress.spec.egress.flatMap((r: Doc) => r.ports.map((p: Doc) => p.port));
    expect(ports).toEqual(expect.arrayContaining([4317, 4318]));
  });
});

/** kustomize from scripts/install-infra.sh's tools, or on PATH; rendered checks skip without it. */
const KUSTOMIZE = [
  join(process.env.BAAS_TOOLS_DIR ?? join(homedir(), '.cache', 'baas-tools'), 'bin', 'kustomize'),
  ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'kustomize')),
].find((p) => existsSync(p));
const describeRendered = KUSTOMIZE ? describe : describe.skip;

describeRendered('deploy/k8s/overlays/production (rendered with kustomize)', () => {
  const rendered: Doc[] = parseAllDocuments(
    execFileSync(KUSTOMIZE!, ['build', join(ROOT, 'deploy', 'k8s', 'overlays', 'production')], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    }),
  ).map((d) => d.toJS());
  const of = (kind: string) => rendered.filter((d) => d.kind === kind);
  const hpas = of('HorizontalPodAutoscaler');
  const hpaOf = (name: string): Doc => hpas.find((h) => h.spec.scaleTargetRef.name === name);
  const selects = (selector: Doc, labels: Record<string, string>) =>
    Object.entries(selector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v);

  it.each(services)('$name: at least 2 replicas (or an HPA with minReplicas >= 2) and a PDB', (s) => {
    const d = of('Deployment').find((x) => x.metadata.name === s.name)!;
    const hpa = hpaOf(s.name);
    if (hpa) {
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
      // the HPA owns the count: an apply must not reset it
      expect(d.spec.replicas).toBeUndefined();
    } else {
      expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
    }
    const pdbs = of('PodDisruptionBudget').filter((p) =>
      selects(p.spec.selector, d.spec.template.metadata.labels),
    );
    expect(pdbs).toHaveLength(1);
  });

  it('autoscales gateway, auth and data', () => {
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['auth', 'data', 'gateway']);
  });

  it('generates a hash-suffixed baas-config that every Deployment reads', () => {
    const [config] = of('ConfigMap').filter((c) => c.metadata.name.startsWith('baas-config'));
    expect(config.metadata.name).toMatch(/^baas-config-[a-z0-9]{10}$/);
    for (const d of of('Deployment'))
      expect(d.spec.template.spec.containers[0].envFrom[0].configMapRef.name).toBe(config.metadata.name);
    expect(config.data.NATS_STREAM_REPLICAS).toBe('3');
    expect(config.data.TRUST_PROXY).toBe('1');
    expect(config.data.OTEL_EXPORTER_OTLP_ENDPOINT).toMatch(/^https?:\/\/.+:4318$/);
  });

  it('exposes the gateway through an Ingress, reachable from the ingress controller only', () => {
    const [ingress] = of('Ingress');
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: 'gateway', port: { name: 'http' } });
    const policy = of('NetworkPolicy').find((p) => p.metadata.name === 'allow-gateway-ingress')!;
    expect(policy.spec.ingress[0].from[0].namespaceSelector).toBeDefined();
  });

  it('mounts every secret as a file: no secretKeyRef, every *_FILE inside a mounted Secret', () => {
    for (const w of [...of('Deployment'), ...of('Job')]) {
      const pod = w.spec.template.spec;
      const secretVolumes = new Set(
        (pod.volumes as Doc[]).filter((v) => v.secret).map((v) => v.name as string),
      );
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])] as Doc[]) {
        const where = `${w.kind}/${w.metadata.name}/${c.name}`;
        for (const e of (c.env ?? []) as Doc[]) {
          expect([where, e.valueFrom?.secretKeyRef]).toEqual([where, undefined]);
          if (!(e.name as string).endsWith('_FILE')) continue;
          const mount = (c.volumeMounts as Doc[]).find((m) =>
            (e.value as string).startsWith(`${m.mountPath}/`),
          );
          expect([where, e.name, mount && secretVolumes.has(mount.name)]).toEqual([where, e.name, true]);
        }
      }
    }
  });

  it('runs the migrations in the Jobs, never at boot', () => {
    for (const s of dataServices) {
      const d = of('Deployment').find((x) => x.metadata.name === s.name)!;
      expect(envOf(d.spec.template.spec.containers[0]).DB_MIGRATE_ON_BOOT).toBe('false');
      expect(of('Job').find((j) => j.metadata.name === `migrate-${s.name}`)).toBeDefined();
    }
  });
});
