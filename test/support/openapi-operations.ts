import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The operations of the OpenAPI document the gateway serves (`services/gateway/openapi.json`), as
 * the e2e sweeps read them: what each takes (path and query parameters, a JSON body with its
 * schema and example, a multipart body), how a caller authenticates and which service answers it.
 */

/** The part of a JSON Schema the sweeps walk. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
}

export interface Operation {
  method: string;
  path: string;
  /** The service that answers it (`x-baas-service`): gateway, auth, data, storage or mail. */
  service: string;
  /** Each way to authenticate, as the document's security requirement objects. */
  security: Array<Record<string, unknown>>;
  query: string[];
  pathParams: string[];
  json?: { schema: Schema; example?: unknown };
  multipart: boolean;
}

interface Parameter {
  name: string;
  in: string;
}

interface DocumentOperation {
  responses?: unknown;
  security?: Operation['security'];
  parameters?: Parameter[];
  'x-baas-service'?: string;
  requestBody?: { content?: Record<string, { schema: Schema; example?: unknown }> };
}

interface OpenApiDocument {
  security?: Operation['security'];
  paths: Record<string, Record<string, DocumentOperation | Parameter[]>>;
  components?: { schemas?: Record<string, Schema> };
}

const document = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'services', 'gateway', 'openapi.json'), 'utf8'),
) as OpenApiDocument;

const isOperation = (v: DocumentOperation | Parameter[] | undefined): v is DocumentOperation =>
  typeof v === 'object' && !Array.isArray(v) && v.responses !== undefined;

/** Every operation of the document, in its order. */
export const operations: Operation[] = Object.entries(document.paths).flatMap(([path, item]) => {
  const shared = Array.isArray(item.parameters) ? item.parameters : [];
  return Object.entries(item).flatMap(([method, op]): Operation[] => {
    if (!isOperation(op)) return [];
    const params = [...shared, ...(op.parameters ?? [])];
    const content = op.requestBody?.content ?? {};
    const json = content['application/json'];
    return [
      {
        method: method.toUpperCase(),
        path,
        service: op['x-baas-service'] ?? '',
        security: op.security ?? document.security ?? [],
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        ...(json && { json: { schema: json.schema, example: json.example ?? json.schema.example } }),
        multipart: content['multipart/form-data'] !== undefined,
      },
    ];
  });
});

/** The schemes an operation accepts, flattened (`apiKey`, `userToken`, `adminToken`...). */
export const schemesOf = (op: Operation): string[] => op.security.flatMap((s) => Object.keys(s));

function resolve(s: Schema | undefined): Schema | undefined {
  if (!s?.$ref) return s;
  return resolve(document.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')]);
}

/** The top-level properties a body schema names (through refs and unions). */
export function propertiesOf(s: Schema | undefined): string[] {
  const r = resolve(s);
  if (!r) return [];
  const own = Object.keys(r.properties ?? {});
  const nested = [...(r.anyOf ?? []), ...(r.oneOf ?? []), ...(r.allOf ?? [])].flatMap(propertiesOf);
  return [...new Set([...own, ...nested])];
}
