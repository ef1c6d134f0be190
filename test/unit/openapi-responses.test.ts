import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createResponseValidator, type OpenApiDocument } from '../support/openapi-responses';

// The committed document, as the e2e client uses it.
const doc = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'services', 'gateway', 'openapi.json'), 'utf8'),
) as OpenApiDocument;
const { check } = createResponseValidator(doc);

const JSON_TYPE = 'application/json; charset=utf-8';
const document = {
  _id: '665f1c2ab4d3e2f1a0b9c8f0',
  title: 'Hello',
  isDeleted: false,
  deletedAt: null,
  createdAt: '2025-01-05T10:00:00.000Z',
  updatedAt: '2025-01-05T10:00:00.000Z',
};
const errorBody = (code: string) => ({
  success: false,
  error: 'Not found',
  message: 'Not found',
  code,
  requestId: 'r-1',
});
const answer = (
  method: string,
  url: string,
  status: number,
  body: unknown,
  contentType: string | null = JSON_TYPE,
) =>
  check({ method, url, status, contentType, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('holding e2e answers to the OpenAPI document', () => {
  it('passes a documented answer whose body matches the schema', () => {
    expect(answer('GET', '/api/data/notes/665f1c2ab4d3e2f1a0b9c8f0', 200, document)).toEqual({
      outcome: 'valid',
      operationId: 'getDocument',
    });
    expect(
      answer(
        'GET',
        'http://127.0.0.1:8080/api/data/notes/665f1c2ab4d3e2f1a0b9c8f0?x=1',
        404,
        errorBody('DOCUMENT_NOT_FOUND'),
      ),
    ).toMatchObject({ outcome: 'valid' });
  });

  it('fails a body with a field of the wrong type, saying where', () => {
    const v = answer('GET', '/api/data/notes/665f1c2ab4d3e2f1a0b9c8f0', 200, {
      ...document,
      isDeleted: 'no',
    });
    expect(v.outcome).toBe('invalid');
    const message = v.outcome === 'invalid' ? v.message : '';
    expect(message).toContain('GET /api/data/notes/665f1c2ab4d3e2f1a0b9c8f0 → 200');
    expect(message).toContain('getDocument');
    expect(message).toMatch(/\/isDeleted must be boolean/);
    expect(message).toContain('"title":"Hello"');
  });

  it('fails an error code the status does not list, or a field the error body does not have', () => {
    const v = answer('GET', '/api/data/notes/665f1c2ab4d3e2f1a0b9c8f0', 404, errorBody('TEMPLATE_NOT_FOUND'));
    expect(v.outcome).toBe('invalid');
    expect(v.outcome === 'invalid' && v.message).toMatch(/\/code must be equal to one of the allowed values/);
    const extra = answer('GET', '/api/data/notes/665f1c2ab4d3e2f1a0b9c8f0', 404, {
      ...errorBody('DOCUMENT_NOT_FOUND'),
      stack: 'at …',
    });
    expect(extra.outcome === 'invalid' && extra.message).toMatch(
      /must NOT have additional properties \(stack\)/,
    );
  });

  it('fails a status the operation does not document', () => {
    const v = answer('GET', '/api/data/notes/665f1c2ab4d3e2f1a0b9c8f0', 418, errorBody('TEAPOT'));
    expect(v).toMatchObject({ outcome: 'invalid', operationId: 'getDocument' });
    expect(v.outcome === 'invalid' && v.message).toMatch(/status 418 is not documented/);
  });

  it('fails a content type the status does not document, or a missing JSON body', () => {
    const html = answer('GET', '/api/admin/projects', 200, '<html></html>', 'text/html');
    expect(html.outcome === 'invalid' && html.message).toMatch(/content type text\/html is not documented/);
    expect(answer('GET', '/api/admin/projects', 200, '')).toMatchObject({ outcome: 'invalid' });
  });

  it("takes a file's bytes as they come, whatever their type", () => {
    const file = '/files/665f1c2ab4d3e2f1a0b9c8f0/a.json';
    expect(answer('GET', file, 200, '{"any":"json"}')).toMatchObject({ outcome: 'valid' });
    expect(answer('GET', file, 200, 'PNG…', 'image/png')).toMatchObject({ outcome: 'valid' });
  });

  it('prefers a literal segment over a parameter where two templates match', () => {
    const op = (operationId: string, type: string) => ({
      operationId,
      responses: { 200: { content: { 'application/json': { schema: { type } } } } },
    });
    const two = createResponseValidator({
      paths: {
        '/things/{id}': { get: op('getThing', 'object') },
        '/things/count': { get: op('countThings', 'number') },
      },
    });
    const at = (url: string, body: string) =>
      two.check({ method: 'GET', url, status: 200, contentType: JSON_TYPE, body });
    expect(at('/things/count', '3')).toEqual({ outcome: 'valid', operationId: 'countThings' });
    expect(at('/things/abc', '{}')).toEqual({ outcome: 'valid', operationId: 'getThing' });
    // a method only the other template has: the request is that operation
    expect(
      answer('POST', '/api/data/notes/aggregate', 200, { success: true, data: [], message: 'ok' }),
    ).toEqual({
      outcome: 'valid',
      operationId: 'aggregate',
    });
  });

  it('compiles every documented JSON answer under strict mode', () => {
    const warn = jest.spyOn(console, 'warn');
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        for (const status of Object.keys(op.responses ?? {}))
          // an empty object body: whatever the verdict, compiling the schema must not throw
          expect(() => answer(method, path, Number(status), {})).not.toThrow();
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('skips what the document does not describe', () => {
    expect(answer('GET', '/nowhere', 404, errorBody('ROUTE_NOT_FOUND'))).toMatchObject({
      outcome: 'skipped',
    });
    expect(answer('GET', '/console/index.html', 200, '<html></html>', 'text/html')).toMatchObject({
      outcome: 'skipped',
    });
    expect(answer('OPTIONS', '/api/data/notes', 204, '', null)).toMatchObject({ outcome: 'skipped' });
    expect(answer('PATCH', '/api/storage/upload', 404, errorBody('ROUTE_NOT_FOUND'))).toMatchObject({
      outcome: 'skipped',
    });
  });
});
