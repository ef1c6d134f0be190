import type { IncomingMessage } from 'node:http';
import { hotRoute, DOCUMENT_BODY_LIMIT_BYTES } from './hot-routes';

function req(method: string, url: string, headers: Record<string, string> = {}): IncomingMessage {
  return { method, url, headers } as unknown as IncomingMessage;
}
const json = (length: number, type = 'application/json') => ({
  'content-type': type,
  'content-length': String(length),
});

describe('hotRoute: which requests skip express', () => {
  it('takes a document list, a read and a plain JSON create', () => {
    expect(hotRoute(req('GET', '/api/data/items?limit=5'))).toEqual({ kind: 'list', name: 'items' });
    expect(hotRoute(req('GET', '/api/data/items/abc'))).toEqual({ kind: 'get', name: 'items', id: 'abc' });
    expect(hotRoute(req('GET', '/api/data/it%65ms/a%20b'))).toEqual({
      kind: 'get',
      name: 'items',
      id: 'a b',
    });
    expect(hotRoute(req('POST', '/api/data/items', json(12)))).toEqual({ kind: 'create', name: 'items' });
    expect(hotRoute(req('POST', '/api/data/items', json(12, 'Application/JSON; charset=UTF-8')))).toEqual({
      kind: 'create',
      name: 'items',
    });
  });

  it('takes a body at the limit, leaves one past it to express (its 413)', () => {
    expect(hotRoute(req('POST', '/api/data/items', json(DOCUMENT_BODY_LIMIT_BYTES)))).toBeDefined();
    expect(hotRoute(req('POST', '/api/data/items', json(DOCUMENT_BODY_LIMIT_BYTES + 1)))).toBeUndefined();
  });

  it.each([
    ['another method', req('PUT', '/api/data/items/abc', json(2))],
    ['HEAD', req('HEAD', '/api/data/items')],
    ['aggregate', req('POST', '/api/data/items/aggregate', json(2))],
    ['restore', req('POST', '/api/data/items/abc/restore', json(0))],
    ['a trailing slash', req('GET', '/api/data/items/')],
    ['an empty segment', req('GET', '/api/data//abc')],
    ['an undecodable segment', req('GET', '/api/data/%E0%A4%A')],
    ['another prefix', req('GET', '/api/admin/projects/x/documents/items')],
    ['another case', req('GET', '/API/data/items')],
    ['no content type', req('POST', '/api/data/items', { 'content-length': '2' })],
    ['another type', req('POST', '/api/data/items', json(2, 'text/plain'))],
    ['+json type', req('POST', '/api/data/items', json(2, 'application/vnd.x+json'))],
    ['another charset', req('POST', '/api/data/items', json(2, 'application/json; charset=latin1'))],
    [
      'a chunked body',
      req('POST', '/api/data/items', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
    ],
    ['an encoded body', req('POST', '/api/data/items', { ...json(2), 'content-encoding': 'gzip' })],
    ['no length', req('POST', '/api/data/items', { 'content-type': 'application/json' })],
    [
      'a strange length',
      req('POST', '/api/data/items', { 'content-type': 'application/json', 'content-length': '1e3' }),
    ],
  ])('leaves %s to express', (_label, r) => {
    expect(hotRoute(r)).toBeUndefined();
  });
});
