import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

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
}

const services = (JSON.parse(read('deploy', 'services.json')) as { services: ServiceFacts[] }).services;
const dataServices = services.filter((s) => s.ownsDatabase);
const names = services.map((s) => s.name);

/* eslint-disable @typescript-eslint/no-unsafe-return -- YAML documents are walked untyped: the
   expectations below check their shape */
type Doc = any;

function yamlDocs(...p: string[]): Doc[] {
  return parseAllDocuments(read(...p), { merge: true }).map((d) => d.toJS({ maxAliasCount: -1 }));
}

function envOf(container: Doc): Record<string, Doc> {
  return Object.fromEntries((container.env ?? []).map((e: Doc) => [e.name, e.value ?? e.valueFrom]));
}

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
    expect(svc.command).toContain(`services/${s.name}/dist/main.js`);
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
    expect(mg).toBe(`mongodb://mongo:27017/${s.database}`);
    expect(Object.keys(compose.services[s.name].depends_on)).toContain('postgres-init');
    expect(Object.keys(mongo.services[s.name].depends_on)).toContain('mongo');
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
  const config = find('ConfigMap', 'baas-config')!.data as Record<string, string>;

  it.each(services)('$name: Deployment, container port, PORT and Service port', (s) => {
    const container = find('Deployment', s.name)!.spec.template.spec.containers[0];
    expect(container.args).toContain(`services/${s.name}/dist/main.js`);
    expect(container.ports[0].containerPort).toBe(s.port);
    expect(envOf(container).PORT).toBe(String(s.port));
    expect(find('Service', s.name)!.spec.ports[0].port).toBe(s.port);
  });

  it.each(services)('$name: DATABASE_URL from its own Secret, migrations by a Job, or none', (s) => {
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
    expect(migrate.args).toEqual(['node', 'packages/common/dist/postgres/migrate-cli.js', s.name]);
    expect(envOf(migrate).DATABASE_URL).toEqual(secretRef);
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
