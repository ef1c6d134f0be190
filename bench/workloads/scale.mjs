// Ours alone, as the data grows:
//   scale    list-20, tag filter and a cursor page at a small and a large collection size;
//   tenants  list-20 and get-by-id on one project without and with many background projects x
//            collections in the same store.
// On PostgreSQL the large sizes are bulk-inserted into the data service's tables; on the MongoDB
// wire target they go through the API (slower: the defaults are smaller there, see run.mjs).
import { TAGS, call, documentFor, runConcurrently } from '../lib/http.mjs';
import { createOurProject, cursorsAcross } from '../lib/ours.mjs';
import { summarize } from '../lib/report.mjs';
import { analyze, bulkSeed, dropTenants, seedTenants, tenantCount, withDataDb } from '../lib/store-seed.mjs';

const sc = (s, next) => ({ baseUrl: s.baseUrl, headers: s.headers, next });
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1);

export async function scale(ctx) {
  const { env, cfg, meta, results, cleanups, run, store } = ctx;
  const projects = {};
  for (const [size, count] of Object.entries({ small: cfg.small, large: cfg.large })) {
    const p = await createOurProject(env, `scale-${count}`);
    cleanups.push(() => p.remove());
    const t = Date.now();
    if (store === 'postgres') {
      await withDataDb(env, (c) => bulkSeed(c, p.projectId, 'items', count));
      meta.seeding.push(
        `ours, ${count} documents: bulk INSERT straight into the data service's documents table in ${secs(t)} s`,
      );
    } else {
      await runConcurrently(count, 20, (i) => p.create(documentFor(i)));
      meta.seeding.push(`ours, ${count} documents: through the API (20 in flight) in ${secs(t)} s`);
    }
    projects[size] = { sys: p, count };
  }
  if (store === 'postgres') await withDataDb(env, analyze);
  for (const p of Object.values(projects)) p.cursors = await cursorsAcross(p.sys, p.count);
  const ops = {
    'list-20': (p) => sc(p.sys, () => ({ path: p.sys.paths.list() })),
    filter: (p) => sc(p.sys, (i) => ({ path: p.sys.paths.filter(`tag-${i % TAGS}`) })),
    cursor: (p) => sc(p.sys, (i) => ({ path: p.sys.paths.cursor(p.cursors[i % p.cursors.length]) })),
  };
  const raw = {};
  for (let round = 0; round < cfg.load.rounds; round++) {
    for (const op of Object.keys(ops)) {
      for (const size of round % 2 ? ['large', 'small'] : ['small', 'large']) {
        ((raw[op] ??= {})[size] ??= []).push(
          await run(`${op} ${projects[size].count} docs (round ${round + 1})`, ops[op](projects[size])),
        );
      }
    }
  }
  results.scale = Object.fromEntries(
    Object.entries(raw).map(([op, by]) => [op, { small: summarize(by.small), large: summarize(by.large) }]),
  );
}

/** Background tenants through the API (MongoDB wire target): projects, collections, documents. */
async function seedTenantsThroughApi(env, t, cleanups) {
  const admin = { authorization: `Bearer ${env.PLATFORM_ADMIN_TOKEN}` };
  const ids = await runConcurrently(t.projects, 20, async (p) => {
    const project = (
      await call('POST', `${env.BASE_URL}/api/admin/projects`, {
        headers: admin,
        body: { name: `bench-tenant-${p}` },
        expect: [201],
      })
    ).json;
    for (let c = 1; c <= t.collections; c++) {
      await call('PUT', `${env.BASE_URL}/api/admin/projects/${project.id}/collections/c${c}`, {
        headers: admin,
        body: { schema: { fields: [{ key: 'tag', type: 'String', index: true }] } },
        expect: [200, 201],
      });
      for (let d = 0; d < t.docsPerCollection; d++) {
        await call('POST', `${env.BASE_URL}/api/data/c${c}`, {
          headers: { 'x-api-key': project.secretKey },
          body: documentFor(d),
          expect: [201],
        });
      }
    }
    return project.id;
  });
  cleanups.push(() =>
    runConcurrently(ids.length, 20, (i) =>
      call('DELETE', `${env.BASE_URL}/api/admin/projects/${ids[i]}`, { headers: admin, expect: [200, 404] }),
    ),
  );
}

export async function tenants(ctx, ours, ids) {
  const { env, cfg, meta, results, cleanups, run, log, store, args } = ctx;
  const t = cfg.tenants;
  const ops = {
    'list-20': sc(ours, () => ({ path: ours.paths.list() })),
    get: sc(ours, (i) => ({ path: ours.paths.get(ids[i % ids.length]) })),
  };
  const measureAll = async (label) => {
    const out = {};
    for (const [op, scenario] of Object.entries(ops)) {
      const rounds = [];
      for (let r = 0; r < cfg.load.rounds; r++)
        rounds.push(await run(`${op} ${label} (round ${r + 1})`, scenario));
      out[op] = summarize(rounds);
    }
    return out;
  };
  const first = await call('GET', `${ours.baseUrl}${ours.paths.list()}`, {
    headers: ours.headers,
    expect: [200],
  });
  meta.tenants.projectDocuments = first.json.data.total;
  const present = store === 'postgres' ? await withDataDb(env, (c) => tenantCount(c, t.projects)) : 0;
  if (present > 0) {
    meta.notes.push(
      `${present} background collections were already in the store before the "without" measurement: the comparison is not clean.`,
    );
  }
  const without = await measureAll('without tenants');
  const started = Date.now();
  if (store !== 'postgres') {
    await seedTenantsThroughApi(env, t, cleanups);
  } else if (present === 0) {
    await withDataDb(env, async (c) => {
      await seedTenants(c, { ...t, like: { projectId: ours.projectId, name: 'items' } }, (n) => {
        if (n % 2000 === 0 || n === t.projects) log(`background tenants: ${n} / ${t.projects} projects`);
      });
      await analyze(c);
    });
  }
  meta.seeding.push(
    `background tenants: ${t.projects} projects x ${t.collections} collections x ${t.docsPerCollection} documents ` +
      `(${meta.tenants.documents} documents) ` +
      (store === 'postgres'
        ? `bulk-inserted into the data service's collections/documents tables in ${secs(started)} s, then VACUUM ANALYZE`
        : `through the API (20 projects at a time) in ${secs(started)} s`),
  );
  const drop = () =>
    withDataDb(env, async (c) => {
      await dropTenants(c, t.projects);
      await analyze(c);
    });
  let dropped = false;
  // leave the shared store as found (rows gone, dead tuples vacuumed), even if a measurement fails
  if (store === 'postgres' && !args['keep-tenants']) cleanups.push(() => dropped || drop());
  const withT = await measureAll('with tenants');
  // The "without" runs bracket the "with" one: measured before the seeding and again after the
  // tenants are dropped, so that a machine that drifts over the minutes between (2 shared cores)
  // does not pass for the tenants' cost. PostgreSQL only: on MongoDB the tenants leave at cleanup.
  let after;
  if (store === 'postgres' && !args['keep-tenants']) {
    await drop();
    dropped = true;
    after = await measureAll('without tenants, after dropping them');
  }
  results.tenants = Object.fromEntries(
    Object.keys(ops).map((op) => [
      op,
      { without: without[op], with: withT[op], ...(after ? { withoutAfter: after[op] } : {}) },
    ]),
  );
}
