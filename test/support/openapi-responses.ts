import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Holds the answers the e2e tier receives to the OpenAPI document the gateway serves
 * (`services/gateway/openapi.json`, generated from the route registries): the status must be
 * documented for the operation, and a JSON body must match the schema documented for that status
 * and content type. Requests the document does not describe are skipped, with the reason.
 */

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  responses?: Record<string, ResponseObject | { $ref: string }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, ResponseObject> };
}

export interface ReceivedResponse {
  method: string;
  /** The request's URL, or its path (with or without the query). */
  url: string;
  status: number;
  /** The answer's Content-Type header, if any. */
  contentType: string | null;
  body: Buffer | string;
}

export type Verdict =
  | { outcome: 'valid'; operationId: string }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'invalid'; operationId: string; message: string };

const DOC_ID = 'openapi.json';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** `~` and `/` escaped for a JSON pointer segment (RFC 6901). */
function pointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

interface Template {
  path: string;
  /** A literal segment, or null where the template has a parameter. */
  segments: Array<string | null>;
}

function templateOf(path: string): Template {
  const segments = path
    .split('/')
    .slice(1)
    .map((s) => (/^\{[^}]+\}$/.test(s) ? null : s));
  return { path, segments };
}

function matches(t: Template, segments: string[]): boolean {
  return (
    t.segments.length === segments.length && t.segments.every((lit, i) => lit === null || lit === segments[i])
  );
}

/** OpenAPI: a literal segment wins over a parameter at the first place two templates differ. */
function moreSpecific(a: Template, b: Template): Template {
  for (let i = 0; i < a.segments.length; i++) {
    const [x, y] = [a.segments[i], b.segments[i]];
    if (x !== null && y === null) return a;
    if (x === null && y !== null) return b;
  }
  return a;
}

/** `application/json`, `application/problem+json`: bodies that have a JSON Schema to meet. */
function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || /^application\/[^;]+\+json$/.test(mediaType);
}

/** Bodies worth quoting in a report (the rest are bytes: a file's, say). */
function isText(contentType: string | null): boolean {
  return contentType === null || /^text\/|json|xml|javascript|urlencoded/i.test(contentType);
}

/** The documented media type that covers `actual` (exact, then `type/*`, then `*\/*`). */
function documentedMedia(content: Record<string, MediaType>, actual: string): string | undefined {
  if (Object.hasOwn(content, actual)) return actual;
  const range = `${actual.split('/')[0]}/*`;
  if (Object.hasOwn(content, range)) return range;
  return Object.hasOwn(content, '*/*') ? '*/*' : undefined;
}

function describeErrors(errors: ErrorObject[] | null | undefined, at: string, max = 5): string {
  const list = (errors ?? []).slice(0, max).map((e) => {
    const where = e.instancePath || '(body)';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
          : '';
    const schemaPath = e.schemaPath.startsWith(at) ? `#${e.schemaPath.slice(at.length)}` : e.schemaPath;
    return `  ${where} ${e.message ?? e.keyword}${extra} [${schemaPath}]`;
  });
  const more = (errors?.length ?? 0) > max ? `\n  … and ${(errors?.length ?? 0) - max} more` : '';
  return `${list.join('\n')}${more}`;
}

export function createResponseValidator(doc: OpenApiDocument) {
  // Strict mode stays on instead of `strict: false`: the document's schemas are plain JSON
  // Schema 2020-12 (what `z.toJSONSchema` emits), and an unknown keyword or format in them should
  // fail loudly. What strict mode would refuse is declared, and only that:
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  // - the Schema Object's OpenAPI-only keywords, annotations here (an `example` in a registry's
  //   `.meta()` must not break the suite);
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
  // - the OpenAPI Object's fields: the whole document is added under one id so that each response
  //   schema, compiled by its JSON pointer, resolves `#/components/schemas/…` inside it; Ajv
  //   compiles that root too, and these fields must not read as unknown keywords (nothing
  //   below them is validated as a schema);
  ajv.addVocabulary([
    'openapi',
    'info',
    'jsonSchemaDialect',
    'servers',
    'paths',
    'webhooks',
    'components',
    'security',
    'tags',
  ]);
  // - OpenAPI's formats (binary bodies, sized numbers): annotations, as OpenAPI 3.1 has them.
  for (const f of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password']) ajv.addFormat(f, true);
  ajv.addSchema(doc, DOC_ID);

  const templates = Object.keys(doc.paths).map(templateOf);
  const compiled = new Map<string, ValidateFunction>();

  /** The schema at a pointer in the document, compiled on first use and kept. */
  function validatorAt(pointer: string): ValidateFunction {
    let v = compiled.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      compiled.set(pointer, v);
    }
    return v;
  }

  function find(method: string, path: string): { template: string; operation: Operation } | undefined {
    const segments = path.split('/').slice(1);
    let best: Template | undefined;
    for (const t of templates)
      if (doc.paths[t.path]?.[method] && matches(t, segments)) best = best ? moreSpecific(best, t) : t;
    const operation = best && doc.paths[best.path]?.[method];
    return best && operation ? { template: best.path, operation } : undefined;
  }

  function check(r: ReceivedResponse): Verdict {
    const path = new URL(r.url, 'http://gateway.invalid').pathname;
    const method = r.method.toLowerCase();
    // HEAD is GET without a body (RFC 9110): the same operation, so the same statuses.
    const asMethod = method === 'head' ? 'get' : method;
    if (!METHODS.has(asMethod))
      return { outcome: 'skipped', reason: `${r.method} is not an operation's method (a CORS preflight)` };
    if (!templates.some((t) => matches(t, path.split('/').slice(1))))
      return { outcome: 'skipped', reason: `${path} is not in the document` };
    const found = find(asMethod, path);
    if (!found) return { outcome: 'skipped', reason: `${r.method} ${path} is not in the document` };
    const { template, operation } = found;
    const operationId = operation.operationId ?? `${asMethod} ${template}`;
    const invalid = (why: string): Verdict => {
      const text = typeof r.body === 'string' ? r.body : r.body.toString('utf8');
      const shown = !isText(r.contentType)
        ? `(${Buffer.byteLength(r.body)} bytes of ${r.contentType ?? 'no content type'})`
        : text.length > 300
          ? `${text.slice(0, 300)}…`
          : text;
      return {
        outcome: 'invalid',
        operationId,
        message:
          `${r.method} ${path} → ${r.status} does not match the OpenAPI document ` +
          `(operation ${operationId}, ${template}): ${why}\nbody: ${shown || '(empty)'}`,
      };
    };

    const responses = operation.responses ?? {};
    const statusKey = [String(r.status), `${String(r.status)[0]}XX`, 'default'].find((k) =>
      Object.hasOwn(responses, k),
    );
    if (!statusKey)
      return invalid(
        `status ${r.status} is not documented (documented: ${Object.keys(responses).join(', ')})`,
      );
    let pointer = `/paths/${pointerSegment(template)}/${asMethod}/responses/${statusKey}`;
    let response = responses[statusKey] as ResponseObject | { $ref: string };
    if ('$ref' in response) {
      const name = /^#\/components\/responses\/(.+)$/.exec(response.$ref)?.[1];
      const target = name === undefined ? undefined : doc.components?.responses?.[name];
      if (name === undefined || !target) return invalid(`unresolvable response ${response.$ref}`);
      pointer = `/components/responses/${pointerSegment(name)}`;
      response = target;
    }

    const size = typeof r.body === 'string' ? r.body.length : r.body.byteLength;
    if (method === 'head' || size === 0) {
      // No body to hold to a schema; but a documented JSON answer must have one.
      const content = response.content ?? {};
      if (method !== 'head' && Object.keys(content).some(isJson))
        return invalid('the documented answer has a JSON body, the response has none');
      return { outcome: 'valid', operationId };
    }
    const mediaType = (r.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!response.content)
      return invalid(`status ${statusKey} is documented without a body, the response has one (${mediaType})`);
    const media = documentedMedia(response.content, mediaType);
    if (media === undefined)
      return invalid(
        `content type ${mediaType || '(none)'} is not documented for ${statusKey} ` +
          `(documented: ${Object.keys(response.content).join(', ')})`,
      );
    const mediaObject = response.content[media];
    // A range (`*/*`: a file's own type) documents bytes, not JSON, whatever the file holds.
    if (!isJson(media) || mediaObject?.schema === undefined) return { outcome: 'valid', operationId };
    let value: unknown;
    try {
      value = JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8'));
    } catch {
      return invalid(`the body is not JSON although its content type is ${mediaType}`);
    }
    const schemaPointer = `${pointer}/content/${pointerSegment(media)}/schema`;
    const validate = validatorAt(schemaPointer);
    if (validate(value)) return { outcome: 'valid', operationId };
    return invalid(
      `the body does not match the schema for ${statusKey} ${media}:\n${describeErrors(validate.errors, `${DOC_ID}#${schemaPointer}`)}`,
    );
  }

  return { check };
}
