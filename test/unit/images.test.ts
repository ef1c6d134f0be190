import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/**
 * Issue 13, images: the buildless check of the Dockerfile (CI has no container engine) and the
 * image references of docker-compose and deploy/k8s. `docker build` itself runs wherever an engine
 * is available; this catches what breaks it without one: a COPY of a file that is missing or
 * excluded by .dockerignore, an untagged base image, a user id the manifests do not expect.
 */
const ROOT = join(__dirname, '..', '..');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

/* eslint-disable @typescript-eslint/no-unsafe-return --
   YAML documents are walked untyped */
type Doc = any;

/** Dockerfile instructions with their continuation lines joined. */
const instructions = read('Dockerfile')
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));

/** .dockerignore as prefixes and globs, the way the build context is cut. */
const ignored = read('.dockerignore')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
function isIgnored(path: string): boolean {
  return ignored.some((pattern) => {
    const re = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]]/g, '\\$&')
        .replace(/\*\*\//g, '(?:.*/)?')
        .replace(/\*/g, '[^/]*')}(?:/.*)?$`,
    );
    return re.test(path);
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.name === 'node_modules' || e.name === 'dist') return [];
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

describe('Dockerfile (buildless check)', () => {
  const copies = instructions
    .filter((l) => /^COPY\s/i.test(l) && !/--from=/.test(l))
    .map((l) => l.replace(/^COPY\s+(--\S+\s+)*/i, '').split(/\s+/));

  it('copies something from the build context', () => {
    expect(copies.length).toBeGreaterThan(5);
  });

  it.each(copies.flatMap((args) => args.slice(0, -1).map((src) => [src])))(
    'COPY %s: exists and is in the build context (.dockerignore)',
    (src) => {
      const path = src.replace(/\/$/, '');
      expect(existsSync(join(ROOT, path))).toBe(true);
      expect(isIgnored(path)).toBe(false);
      if (statSync(join(ROOT, path)).isDirectory()) {
        // a directory must bring its sources (not only what .dockerignore leaves of it)
        const kept = filesUnder(path).filter((f) => !isIgnored(relative(ROOT, join(ROOT, f))));
        expect(kept.length).toBeGreaterThan(0);
      }
    },
  );

  it('builds on a tagged base image and runs as the uid the manifests expect (10001)', () => {
    const arg = instructions.find((l) => l.startsWith('ARG NODE_IMAGE='))!;
    const image = arg.split('=')[1]!;
    expect(image).toMatch(/^[a-z0-9./-]+:[\w.-]+(@sha256:[0-9a-f]{64})?$/);
    expect(image).not.toMatch(/:latest\b/);
    expect(instructions).toContain('USER 10001:10001');
    const entry = instructions.find((l) => l.startsWith('ENTRYPOINT'))!;
    expect(entry).toContain('tini');
  });
});

/**
 * Every image a deployment file names, except this project's own (`baas`, set per overlay with
 * `images:`). Each is either pinned by digest (`name:tag@sha256:<64 hex>`) or listed in UNPINNED:
 * no registry was reachable when these were written, and a digest is never invented. Pin them with
 * `crane digest <image>` (deploy/k8s/README.md, "Images") and remove them from the list; the test
 * fails when a listed image is pinned, so the list only shrinks.
 */
const UNPINNED = new Set([
  'postgres:16',
  'nats:2.11-alpine',
  'redis:7',
  'versity/versitygw:v1.7.0',
  'axllent/mailpit:v1.30.5',
  'mongo:7',
]);

function imagesIn(node: Doc, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) imagesIn(n, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === 'image' && typeof v === 'string') out.push(v);
      else imagesIn(v, out);
    }
  return out;
}

const deploymentFiles = [
  'docker-compose.yml',
  'docker-compose.mongodb.yml',
  ...filesUnder('deploy/k8s').filter((f) => f.endsWith('.yaml') && !f.includes('/schemas/')),
];
const references = deploymentFiles.flatMap((f) => {
  const docs = f.startsWith('docker-compose')
    ? [parse(read(f), { merge: true, logLevel: 'error', maxAliasCount: -1 })]
    : parseAllDocuments(read(f), { merge: true }).map((d) => d.toJS({ maxAliasCount: -1 }));
  return imagesIn(docs)
    .filter((image) => image !== 'baas' && !image.startsWith('${BAAS_IMAGE'))
    .map((image) => [f, image] as [string, string]);
});

describe('image references in docker-compose and deploy/k8s', () => {
  it('finds the dependencies’ images', () => {
    expect(references.length).toBeGreaterThan(5);
  });

  it.each(references)('%s: %s is tagged, and pinned by digest or listed as not yet pinned', (_f, image) => {
    expect(image).toMatch(/^[a-z0-9./-]+:[\w.-]+(@sha256:[0-9a-f]{64})?$/);
    expect(image).not.toMatch(/:latest(@|$)/);
    const pinned = /@sha256:[0-9a-f]{64}$/.test(image);
    expect([image, pinned || UNPINNED.has(image)]).toEqual([image, true]);
  });

  it('lists no image as unpinned that is not used any more', () => {
    const used = new Set(references.map(([, image]) => image));
    for (const image of UNPINNED) expect([image, used.has(image)]).toEqual([image, true]);
  });
});
