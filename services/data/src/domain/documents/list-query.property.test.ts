import fc from 'fast-check';
import { isAppError, trustedProjectId } from '@baas/common';
import {
  NOTES_SCHEMA,
  hostileFilterKey,
  hostileTypedParam,
  propertyParams,
  validListQuery,
} from '../../../test/property/grammar';
import type { CollectionDef, CollectionSchema } from '../collections/collection';
import { and, visibility } from './filters';
import { LIMIT_MAX, parseListQuery, type ListQuery } from './list-query';
import { eq, type Condition } from './query';

/**
 * Properties of list-filter parsing over generated query strings (fixed seed, see grammar.ts):
 * 3,000 valid queries, 2,000 with a hostile key, 1,000 with a hostile value and 2,000 fuzzed
 * ones = 8,000 cases a run in this file.
 */
const def: CollectionDef = {
  projectId: trustedProjectId('0123456789abcdef01234567'),
  name: 'notes',
  schema: JSON.parse(JSON.stringify(NOTES_SCHEMA)) as CollectionSchema,
  rls: { enabled: true, mode: 'private', ownerField: 'userId' },
  createdAt: new Date(),
  updatedAt: new Date(),
};
const RESERVED = new Set(['page', 'limit', 'sort', 'include_deleted', 'cursor']);

function parse(pairs: Array<[string, string]>): { ok: true; q: ListQuery } | { ok: false; status: number } {
  try {
    return { ok: true, q: parseListQuery(pairs, def) };
  } catch (e) {
    if (!isAppError(e)) throw e;
    return { ok: false, status: e.status };
  }
}

/** Every field a condition names, at any depth. */
function fields(c: Condition): string[] {
  if ('conditions' in c) return c.conditions.flatMap((x) => fields(x));
  return [c.field];
}

/** What the query string says on its way in (the HTTP layer reads pairs the same way). */
const asPairs = (pairs: Array<[string, string]>) =>
  [...new URLSearchParams(new URLSearchParams(pairs).toString())] as Array<[string, string]>;

describe('list filter parsing, property-based', () => {
  it('parses every valid query: one ANDed condition per filter, on the named fields only, bounded limit (3,000 cases)', () => {
    fc.assert(
      fc.property(validListQuery, (raw) => {
        const pairs = asPairs(raw);
        const r = parse(pairs);
        expect(r).toMatchObject({ ok: true });
        if (!r.ok) return;
        const filterKeys = pairs.filter(([k]) => !RESERVED.has(k)).map(([k]) => k);
        expect(r.q.conditions).toHaveLength(filterKeys.length);
        for (const c of r.q.conditions) {
          // A client filter never widens: no OR reaches the store from a query string.
          expect(c.op).not.toBe('or');
          for (const f of fields(c)) expect(filterKeys.some((k) => k.startsWith(f))).toBe(true);
        }
        expect(r.q.limit).toBeLessThanOrEqual(LIMIT_MAX);
        expect(r.q.sort[r.q.sort.length - 1]?.field).toBe('_id');
        // The RLS scope stays a top-level conjunct of what the store is asked.
        const scope = eq('userId', 'userA');
        const where = and(visibility(r.q.includeDeleted), scope, ...r.q.conditions);
        if (where.op === 'and') expect(where.conditions).toContainEqual(scope);
        else expect(where).toEqual(scope);
      }),
      propertyParams(3000),
    );
  });

  it('refuses with 400 any query naming an operator, a prototype, an internal field or a malformed path (2,000 cases)', () => {
    fc.assert(
      fc.property(
        validListQuery,
        hostileFilterKey,
        fc.constantFrom('', '_gt', '_lt', '_ne', '_in', '_regex'),
        fc.string({ maxLength: 8 }),
        fc.nat(),
        (raw, key, suffix, value, at) => {
          const pairs = raw.filter(([k]) => k !== key);
          // An empty key plus a suffix would be a plain field name ('_lt'): the suffix goes.
          pairs.splice(at % (pairs.length + 1), 0, [key === '' ? '' : `${key}${suffix}`, value]);
          expect(parse(pairs)).toEqual({ ok: false, status: 400 });
        },
      ),
      propertyParams(2000),
    );
  });

  it('refuses with 400 values a typed field, paging or sorting cannot take: huge numbers, bad dates, bad regexes (1,000 cases)', () => {
    fc.assert(
      fc.property(validListQuery, hostileTypedParam, (raw, bad) => {
        const pairs = [...raw.filter(([k]) => k !== bad[0]), bad];
        expect(parse(pairs)).toEqual({ ok: false, status: 400 });
      }),
      propertyParams(1000),
    );
  });

  it('on fuzzed query strings answers a parse or a 400, and whatever it parses names no operator or internal field (2,000 cases)', () => {
    const anyKey = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 16 }),
      fc.stringMatching(/^[A-Za-z_$.[\]0-9]{1,20}$/),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(anyKey, fc.string({ unit: 'grapheme', maxLength: 16 })), { maxLength: 6 }),
        (pairs) => {
          const r = parse(pairs);
          if (!r.ok) {
            expect(r.status).toBe(400);
            return;
          }
          for (const f of r.q.conditions.flatMap(fields)) {
            expect(f).toMatch(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/);
            expect(f.split('.')).not.toContain('__proto__');
            expect(['_outbox', '_purgeAfterRelay']).not.toContain(f.split('.')[0]);
          }
        },
      ),
      propertyParams(2000),
    );
  });
});
