import { randomBytes } from 'node:crypto';
import { ADMIN_TOKEN, BASE_URL, randomIp, send } from '../support/e2e';
import { operations } from '../support/openapi-operations';

/**
 * Every list of the OpenAPI document that pages by cursor, over items made all at once: twelve
 * requests in parallel make twelve items (projects, console accounts, end users, documents, files,
 * mails, audit entries), which often share their creation instant, and the list is read five at a
 * time, cursor after cursor. Each item must come exactly once, whatever ties the keyset has to
 * break; a list that skipped or repeated items sharing an instant would show here. A new cursor
 * list of the document must have its case below (the first test says so).
 */
const ITEMS = 12;
const PAGE = 5;
const PASSWORD = 'a long enough passphrase 42';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Answer {
  status: number;
  body: any;
}

async function request(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const r = await send(`${BASE_URL}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ip: randomIp(),
    ...(body !== undefined && { body: body instanceof FormData ? body : JSON.stringify(body) }),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

async function must(what: string, a: Promise<Answer>): Promise<any> {
  const r = await a;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.body;
}

const all = <T>(make: (i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: ITEMS }, (_, i) => make(i)));

/** A project of the sweep's own, with its keys. */
async function project(): Promise<{ id: string; secretKey: string; publishableKey: string }> {
  return (await must('project', request('POST', '/api/admin/projects', admin, { name: 'pages' }))) as {
    id: string;
    secretKey: string;
    publishableKey: string;
  };
}

/** What a case made: the list to read (its path with any filter), and the ids it must show. */
interface Made {
  path: string;
  headers: Record<string, string>;
  ids: string[];
  cleanup?: () => Promise<void>;
}

const idOf = (item: Record<string, unknown>) => String(item.id ?? item._id ?? item.path);

/** Cases by the list they read (the document's method and path). */
const CASES: Record<string, Array<[label: string, make: () => Promise<Made>]>> = {
  'GET /api/admin/projects': [
    [
      'projects',
      async () => ({
        path: '/api/admin/projects',
        headers: admin,
        ids: (await all(project)).map((p) => p.id),
      }),
    ],
  ],
  'GET /api/admin/console/accounts': [
    [
      'console accounts found by a search',
      async () => {
        const tag = `pages${randomBytes(4).toString('hex')}`;
        const made = await all((i) =>
          must(
            'account',
            request('POST', '/api/admin/console/accounts', admin, {
              email: `${tag}.${i}@example.test`,
              password: PASSWORD,
              platformAdmin: false,
            }),
          ),
        );
        const ids = made.map((m) => String(m.data.id));
        return {
          path: `/api/admin/console/accounts?search=${tag}`,
          headers: admin,
          ids,
          cleanup: async () => {
            for (const id of ids) await request('DELETE', `/api/admin/console/accounts/${id}`, admin);
          },
        };
      },
    ],
  ],
  'GET /api/admin/projects/{projectId}/users': [
    [
      'end users',
      async () => {
        const p = await project();
        const made = await all((i) =>
          must(
            'signup',
            request(
              'POST',
              '/api/userAuth/signup',
              { 'x-api-key': p.publishableKey },
              { email: `pages.${i}.${randomBytes(3).toString('hex')}@example.test`, password: PASSWORD },
            ),
          ),
        );
        return {
          path: `/api/admin/projects/${p.id}/users`,
          headers: admin,
          ids: made.map((m) => String(m.user._id)),
        };
      },
    ],
  ],
  'GET /api/data/{collectionName}': [
    [
      'documents, newest first',
      () =>
        documents(
          () => `/api/data/notes`,
          (p) => ({ 'x-api-key': p.secretKey }),
        ),
    ],
    [
      'documents sorted by a field they all share',
      () =>
        documents(
          () => `/api/data/notes?sort=title`,
          (p) => ({ 'x-api-key': p.secretKey }),
        ),
    ],
  ],
  'GET /api/admin/projects/{projectId}/documents/{collectionName}': [
    [
      'documents through the admin API',
      () =>
        documents(
          (p) => `/api/admin/projects/${p.id}/documents/notes`,
          () => admin,
        ),
    ],
  ],
  'GET /api/admin/projects/{projectId}/files': [
    [
      'files',
      async () => {
        const p = await project();
        const made = await all((i) => {
          const form = new FormData();
          form.append('file', new Blob([`file ${i}`], { type: 'text/plain' }), `f${i}.txt`);
          return must('upload', request('POST', '/api/storage/upload', { 'x-api-key': p.secretKey }, form));
        });
        return {
          path: `/api/admin/projects/${p.id}/files`,
          headers: admin,
          ids: made.map((m) => String(m.path)),
        };
      },
    ],
  ],
  'GET /api/admin/projects/{projectId}/mail/messages': [
    ['mails of a project', async () => mails((p) => `/api/admin/projects/${p.id}/mail/messages`)],
  ],
  'GET /api/admin/mail/messages': [['mails of the platform (password resets)', platformMails]],
  'GET /api/admin/projects/{projectId}/audit': [
    ['audit entries of a project', async () => audits((p) => `/api/admin/projects/${p}/audit`)],
  ],
  'GET /api/admin/audit': [
    ['audit entries of every project', async () => audits((p) => `/api/admin/audit?projectId=${p}`)],
  ],
};

type Project = Awaited<ReturnType<typeof project>>;

async function documents(
  path: (p: Project) => string,
  headers: (p: Project) => Record<string, string>,
): Promise<Made> {
  const p = await project();
  await must(
    'collection',
    request('PUT', `/api/admin/projects/${p.id}/collections/notes`, admin, {
      schema: { fields: [{ key: 'title', type: 'String' }] },
    }),
  );
  const made = await all(() =>
    must('document', request('POST', '/api/data/notes', { 'x-api-key': p.secretKey }, { title: 'same' })),
  );
  return { path: path(p), headers: headers(p), ids: made.map((d) => String(d._id)) };
}

async function mails(path: (p: Project) => string): Promise<Made> {
  const p = await project();
  const made = await all((i) =>
    must(
      'mail',
      request(
        'POST',
        '/api/mail/send',
        { 'x-api-key': p.secretKey },
        {
          to: `pages.${i}@example.test`,
          subject: 'Pages',
          text: `mail ${i}`,
        },
      ),
    ),
  );
  return { path: path(p), headers: admin, ids: made.map((m) => String(m.data?.id ?? m.id)) };
}

/**
 * Twelve console accounts ask for a password reset at once: the platform's own mails (they belong
 * to no project), found in its log by their addresses once all are in.
 */
async function platformMails(): Promise<Made> {
  const tag = `pages${randomBytes(4).toString('hex')}`;
  const emails = Array.from({ length: ITEMS }, (_, i) => `${tag}.${i}@example.test`);
  const accounts = await all((i) =>
    must(
      'account',
      request('POST', '/api/admin/console/accounts', admin, {
        email: emails[i],
        password: PASSWORD,
        platformAdmin: false,
      }),
    ),
  );
  await all((i) =>
    must('reset', request('POST', '/api/console/password-reset/request', {}, { email: emails[i] })),
  );
  const cleanup = async () => {
    for (const a of accounts) await request('DELETE', `/api/admin/console/accounts/${a.data.id}`, admin);
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await must('log', request('GET', '/api/admin/mail/messages?limit=100', admin));
    const ours = (r.data.items as Array<{ id: string; to: string }>).filter((m) => emails.includes(m.to));
    if (ours.length >= ITEMS)
      return { path: '/api/admin/mail/messages', headers: admin, ids: ours.map(idOf), cleanup };
    if (Date.now() > deadline) {
      await cleanup();
      throw new Error(`${ours.length} of ${ITEMS} password-reset mails within 20 s`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Twelve collections registered at once: an audit entry each, written once its event is in. */
async function audits(path: (projectId: string) => string): Promise<Made> {
  const p = await project();
  await all((i) =>
    must('collection', request('PUT', `/api/admin/projects/${p.id}/collections/c${i}`, admin, {})),
  );
  const list = `/api/admin/projects/${p.id}/audit?action=collection.registered&limit=100`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await must('audit', request('GET', list, admin));
    const items = r.data.items as Array<Record<string, unknown>>;
    if (items.length >= ITEMS) return { path: path(p.id), headers: admin, ids: items.map(idOf) };
    if (Date.now() > deadline) throw new Error(`${items.length} of ${ITEMS} audit entries within 20 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Reads the list five at a time until every id made has come and one page more (where a repeat
 * would show), or the list ends: what came, in order.
 */
async function readPages(made: Made): Promise<string[]> {
  const seen: string[] = [];
  const sep = made.path.includes('?') ? '&' : '?';
  let cursor = '';
  let after = 0;
  for (let page = 0; page < 400; page++) {
    const r = await must(
      'page',
      request('GET', `${made.path}${sep}limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`, made.headers),
    );
    const data = r.data as { items: Array<Record<string, unknown>>; nextCursor: string | null };
    seen.push(...data.items.map(idOf));
    if (made.ids.every((id) => seen.includes(id))) after++;
    if (data.nextCursor === null || after > 1) return seen;
    cursor = data.nextCursor;
  }
  throw new Error('no end of the list within 400 pages');
}

describe('every cursor list, over items made at the same instant', () => {
  it('has a case for every list of the document that pages by cursor', () => {
    const lists = operations.filter((op) => op.method === 'GET' && op.query.includes('cursor'));
    expect(lists.length).toBeGreaterThan(8);
    expect(lists.map((op) => `${op.method} ${op.path}`).filter((k) => !CASES[k])).toEqual([]);
  });

  const cases = Object.entries(CASES).flatMap(([op, list]) =>
    list.map(([label, make]) => [`${op}: ${label}`, make] as const),
  );

  it.each(cases)('%s: each once, five at a time', async (_, make) => {
    const made = await make();
    try {
      const seen = await readPages(made);
      const ours = seen.filter((id) => made.ids.includes(id));
      // each once, and all of them
      expect(ours.filter((id, i) => ours.indexOf(id) !== i)).toEqual([]);
      expect([...ours].sort()).toEqual([...made.ids].sort());
      // nothing else of the list came twice either
      expect(seen.filter((id, i) => seen.indexOf(id) !== i)).toEqual([]);
    } finally {
      await made.cleanup?.();
    }
  });
});
