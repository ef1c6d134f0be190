import { isAppError } from '../errors';
import { MAX_QUERY_PARAMETERS, parseQuery } from './query';

const params = (n: number) => Array.from({ length: n }, (_, i) => `f${i}_regex=a`).join('&');

describe('parseQuery', () => {
  it('parses as express\'s "extended" parser does: nested keys, arrays, prototype-named keys', () => {
    expect(parseQuery('a=1&b[c]=2&d[]=x&d[]=y&hasOwnProperty=3')).toEqual({
      a: '1',
      b: { c: '2' },
      d: ['x', 'y'],
      hasOwnProperty: '3',
    });
  });

  it(`takes ${MAX_QUERY_PARAMETERS} parameters and refuses one more with 400 VALIDATION_FAILED`, () => {
    expect(Object.keys(parseQuery(params(MAX_QUERY_PARAMETERS)))).toHaveLength(MAX_QUERY_PARAMETERS);
    let thrown: unknown;
    try {
      parseQuery(params(MAX_QUERY_PARAMETERS + 1));
    } catch (e) {
      thrown = e;
    }
    expect(isAppError(thrown) && thrown.status === 400 && thrown.code === 'VALIDATION_FAILED').toBe(true);
  });

  it('takes 20 elements in one array and refuses 21 (instead of turning it into an object)', () => {
    const arr = (n: number) => Array.from({ length: n }, (_, i) => `a[]=${i}`).join('&');
    expect(parseQuery(arr(20)).a).toHaveLength(20);
    expect(() => parseQuery(arr(21))).toThrow(/Array limit exceeded/);
  });
});
