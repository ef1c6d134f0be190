import { MAX_QUERY_PARAMETERS } from '@baas/common';
import { queryPairs } from './caller';

/** The data routes read the query string as raw pairs (never express's parser), bounded alike. */
describe('queryPairs', () => {
  const url = (n: number) => `/api/data/notes?${Array.from({ length: n }, (_, i) => `f${i}=x`).join('&')}`;

  it('reads literal keys: a[$ne]=x stays one pair, never an object', () => {
    expect(queryPairs('/api/data/notes?a[$ne]=x&b=1')).toEqual([
      ['a[$ne]', 'x'],
      ['b', '1'],
    ]);
    expect(queryPairs('/api/data/notes')).toEqual([]);
  });

  it(`takes ${MAX_QUERY_PARAMETERS} parameters and refuses one more with 400 VALIDATION_FAILED`, () => {
    expect(queryPairs(url(MAX_QUERY_PARAMETERS))).toHaveLength(MAX_QUERY_PARAMETERS);
    expect(() => queryPairs(url(MAX_QUERY_PARAMETERS + 1))).toThrow(
      expect.objectContaining({ status: 400, code: 'VALIDATION_FAILED' }),
    );
  });
});
