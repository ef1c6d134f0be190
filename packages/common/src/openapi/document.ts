import { z } from 'zod';
import type { ApiRoute, ApiSecurity } from './route';
import { errorBodySchema } from './schemas';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** Tag name → description, in the order the tags are listed. */
  tags: Record<string, string>;
}

/** Codes every route of a kind answers with, whatever it does. */
const KEY_ERRORS: Record<number, string[]> = {
  401: ['MISSING_API_KEY', 'INVALID_API_KEY'],
  403: ['ORIGIN_NOT_ALLOWED'],
};
const SECURITY_ERRORS: Record<ApiSecurity, Record<number, string[]>> = {
  public: {},
  key: KEY_ERRORS,
  secretKey: { ...KEY_ERRORS, 403: [...(KEY_ERRORS[403] ?? []), 'SECRET_KEY_REQUIRED'] },
  keyUser: { ...KEY_ERRORS, 401: [...(KEY_ERRORS[401] ?? []), 'TOKEN_REQUIRED', 'INVALID_TOKEN'] },
  keyOptionalUser: { ...KEY_ERRORS, 401: [...(KEY_ERRORS[401] ?? []), 'INVALID_TOKEN'] },
  admin: { 401: ['ADMIN_TOKEN_REQUIRED'] },
  consoleSession: { 401: ['CONSOLE_SESSION_REQUIRED'] },
};
/**
 * What a console session (the `baas_console` cookie) may be refused on an admin route besides the
 * token's 401: another origin or, on a change, no CSRF token; under a project, no role on it
 * (404) or too weak a one for a change (403); elsewhere anything but the project list is for
 * platform admins. The gateway decides (services/gateway/src/domain/console-access.ts; its test
 * holds the committed document to that decision).
 */
function consoleSessionErrors(route: ApiRoute): Record<number, string[]> {
  const change = route.method !== 'get';
  const forbidden = ['CSRF_TOKEN_INVALID'];
  if (route.path.startsWith('/api/admin/projects/{projectId}')) {
    if (change) forbidden.push('INSUFFICIENT_ROLE');
    return { 403: forbidden, 404: ['PROJECT_NOT_FOUND'] };
  }
  if (route.path !== '/api/admin/projects' || change) forbidden.push('PLATFORM_ADMIN_REQUIRED');
  return { 403: forbidden };
}

const EVERY_ROUTE_ERRORS: Record<number, string[]> = {
  429: ['RATE_LIMITED'],
  500: ['INTERNAL'],
  502: ['BAD_GATEWAY'],
  503: ['SERVICE_UNAVAILABLE'],
  504: ['GATEWAY_TIMEOUT'],
};
/** The JSON body parser's refusals (a charset other than UTF-8, an unknown Content-Encoding: 415). */
const JSON_BODY_ERRORS: Record<number, string[]> = {
  400: ['MALFORMED_JSON'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
};
const VALIDATED_ERRORS: Record<number, string[]> = { 400: ['VALIDATION_FAILED'] };
/** A path parameter whose percent-encoding does not decode (`%ff`). */
const PATH_PARAM_ERRORS: Record<number, string[]> = { 400: ['MALFORMED_URL'] };

const SECURITY_REQUIREMENTS: Record<ApiSecurity, Json[]> = {
  public: [],
  key: [{ apiKey: [] }],
  secretKey: [{ apiKey: [] }],
  keyUser: [{ apiKey: [], userToken: [] }],
  keyOptionalUser: [{ apiKey: [] }, { apiKey: [], userToken: [] }],
  // the token, or a console session whose role allows the request (checked by the gateway)
  admin: [{ adminToken: [] }, { consoleSession: [] }],
  consoleSession: [{ consoleSession: [] }],
};

const SECURITY_NOTES: Partial<Record<ApiSecurity, string>> = {
  secretKey: 'Secret key (`sk_live_…`) only.',
  keyUser: "Needs an end user's access token (`Authorization: Bearer <accessToken>`).",
  keyOptionalUser:
    "An end user's access token where row-level security asks for one (a token that is sent must be valid).",
  consoleSession: 'Needs a live console session (the `baas_console` cookie from sign-in).',
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/**
 * JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema, as it is given (`input`) or
 * answered (`output`). Recursive schemas (which carry an id: `.meta({ id })`) go to `components`
 * (the `input` and `output` forms under one name when they agree, else the output's as `<id>Output`).
 */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  components?: Record<string, Json>,
): Json {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // `.int()` adds the safe-integer range to every integer: noise in a document.
    override: (ctx) => {
      const js = ctx.jsonSchema as Json;
      if (js.minimum === Number.MIN_SAFE_INTEGER) delete js.minimum;
      if (js.maximum === Number.MAX_SAFE_INTEGER) delete js.maximum;
    },
  }) as Json;
  delete out.$schema;
  const defs = out.$defs as Record<string, Json> | undefined;
  if (!defs) return out;
  delete out.$defs;
  if (!components) throw new Error('a recursive schema needs a components collector');
  for (const id of Object.keys(defs))
    if (id.startsWith('__schema')) throw new Error('a recursive schema needs an id: .meta({ id })');
  // Input forms are named by their id; an output form shares the name only when it is the same.
  const place = (suffix: string, mustExist: boolean) => {
    const rewrite = (v: Json): Json =>
      JSON.parse(
        JSON.stringify(v).replace(
          /"#\/\$defs\/([^"]+)"/g,
          (_m, id: string) => `"#/components/schemas/${id}${suffix}"`,
        ),
      ) as Json;
    const placed = Object.entries(defs).map(([id, def]) => [`${id}${suffix}`, rewrite(def)] as const);
    const fits = placed.every(
      ([name, value]) =>
        (components[name] === undefined && !mustExist) ||
        JSON.stringify(components[name]) === JSON.stringify(value),
    );
    return { placed, fits, out: rewrite(out) };
  };
  let chosen = place('', io === 'output');
  if (!chosen.fits && io === 'output') chosen = place('Output', false);
  if (!chosen.fits) throw new Error(`two different schemas share an id: ${Object.keys(defs).join(', ')}`);
  for (const [name, value] of chosen.placed) components[name] = value;
  return chosen.out;
}

function merge(into: Map<number, Set<string>>, add: Partial<Record<number, readonly string[]>>): void {
  for (const [status, codes] of Object.entries(add)) {
    const set = into.get(Number(status)) ?? new Set<string>();
    for (const c of codes ?? []) set.add(c);
    into.set(Number(status), set);
  }
}

function parameters(route: ApiRoute, components: Record<string, Json>): Json[] {
  const out: Json[] = [];
  const add = (where: 'path' | 'query' | 'header', obj: z.ZodObject | undefined) => {
    if (!obj) return;
    for (const [name, field] of Object.entries<z.ZodType>(obj.shape)) {
      const schema = jsonSchemaOf(field, 'input', components);
      const description = typeof schema.description === 'string' ? schema.description : undefined;
      delete schema.description;
      const p: Json = { name, in: where, required: where === 'path' || !field.safeParse(undefined).success };
      if (description) p.description = description;
      p.schema = schema;
      out.push(p);
    }
  };
  add('path', route.params);
  add('query', route.query);
  add('header', route.headers);
  const declared = new Set(route.params ? Object.keys(route.params.shape) : []);
  const inPath = new Set([...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? ''));
  for (const n of new Set([...declared, ...inPath]))
    if (!declared.has(n) || !inPath.has(n))
      throw new Error(
        `${route.method.toUpperCase()} ${route.path}: path parameter ${n} is not declared on both sides`,
      );
  return out;
}

function errorResponse(status: number, codes: string[], requestId: Json): Json {
  const res: Json = {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
    headers: { ...requestId },
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorBody' },
            { type: 'object', properties: { code: { type: 'string', enum: codes } } },
          ],
        },
        example: {
          success: false,
          error: STATUS_TEXT[status] ?? 'Error',
          message: STATUS_TEXT[status] ?? 'Error',
          code: codes[0],
          requestId: '3f2a0c4e-8d1b-4c5e-9a7f-2b6d1e0c9a55',
        },
      },
    },
  };
  if (status === 429 || status === 503)
    (res.headers as Json)['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
  return res;
}

/** Error answers are shared components, one per status and set of codes, referenced by each operation. */
function errorRef(status: number, codes: string[], components: Record<string, Json>, requestId: Json): Json {
  const name = `Error${status}_${codes.join('_')}`;
  components[name] ??= errorResponse(status, codes, requestId);
  return { $ref: `#/components/responses/${name}` };
}

function operation(
  route: ApiRoute,
  errorResponses: Record<string, Json>,
  schemas: Record<string, Json>,
): Json {
  const requestId = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
  const op: Json = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
  };
  const note = SECURITY_NOTES[route.security];
  const description = [route.description, note].filter(Boolean).join('\n\n');
  if (description) op.description = description;
  const params = parameters(route, schemas);
  if (params.length > 0) op.parameters = params;
  if (route.body) {
    const media: Json = { schema: jsonSchemaOf(route.body.schema, 'input', schemas) };
    if (route.body.example !== undefined) media.example = route.body.example;
    op.requestBody = {
      required: true,
      ...(route.body.description ? { description: route.body.description } : {}),
      content: { [route.body.contentType ?? 'application/json']: media },
    };
  }
  const responses: Json = {};
  for (const [status, r] of Object.entries(route.responses)) {
    const res: Json = { description: r.description, headers: { ...requestId } };
    if (r.schema) {
      const media: Json = { schema: jsonSchemaOf(r.schema, 'output', schemas) };
      if (r.example !== undefined) media.example = r.example;
      res.content = { [r.contentType ?? 'application/json']: media };
    }
    responses[status] = res;
  }
  const errs = new Map<number, Set<string>>();
  merge(errs, route.errors ?? {});
  if (route.body && (route.body.contentType ?? 'application/json') === 'application/json') {
    merge(errs, JSON_BODY_ERRORS);
    merge(errs, VALIDATED_ERRORS);
  }
  if (route.query) merge(errs, VALIDATED_ERRORS);
  if (route.params) merge(errs, PATH_PARAM_ERRORS);
  merge(errs, SECURITY_ERRORS[route.security]);
  if (route.security === 'admin') merge(errs, consoleSessionErrors(route));
  merge(errs, EVERY_ROUTE_ERRORS);
  for (const status of [...errs.keys()].sort((a, b) => a - b))
    responses[String(status)] = errorRef(
      status,
      [...(errs.get(status) ?? [])].sort(),
      errorResponses,
      requestId,
    );
  op.responses = responses;
  op.security = SECURITY_REQUIREMENTS[route.security];
  op['x-baas-service'] = route.service;
  return op;
}

/**
 * The OpenAPI 3.1 document of the routes given (the public API and the admin API, as clients
 * reach them through the gateway). Deterministic: the same routes give the same bytes.
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[], info: OpenApiInfo): Json {
  const paths: Record<string, Json> = {};
  const errorResponses: Record<string, Json> = {};
  const schemas: Record<string, Json> = { ErrorBody: jsonSchemaOf(errorBodySchema, 'output') };
  const seen = new Set<string>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) throw new Error(`route documented twice: ${key}`);
    if (seen.has(route.operationId)) throw new Error(`operationId used twice: ${route.operationId}`);
    seen.add(key);
    seen.add(route.operationId);
    if (!Object.hasOwn(info.tags, route.tag)) throw new Error(`${key}: tag ${route.tag} is not described`);
    const item = (paths[route.path] ??= {});
    item[route.method] = operation(route, errorResponses, schemas);
  }
  const used = new Set(routes.map((r) => r.tag));
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [
      {
        url: '{baseUrl}',
        description: 'The gateway (`BASE_URL`)',
        variables: { baseUrl: { default: 'http://127.0.0.1:8080' } },
      },
    ],
    tags: Object.entries(info.tags)
      .filter(([name]) => used.has(name))
      .map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: Object.fromEntries(Object.entries(errorResponses).sort(([a], [b]) => a.localeCompare(b))),
      headers: {
        RequestId: {
          description:
            "The request's id: the client's own `x-request-id` when it sent a sane one, else a UUID.",
          schema: { type: 'string' },
        },
        RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
      },
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'A project key: publishable `pk_live_…` (clients) or secret `sk_live_…` (servers).',
        },
        userToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "An end user's access token (EdDSA JWT from signup, login or refresh).",
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The platform admin token (`PLATFORM_ADMIN_TOKEN`), for the admin API only.',
        },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'baas_console',
          description:
            "A console session (HttpOnly, SameSite=Strict, Path=/api), set by `POST /api/console/login` or by accepting an invitation. State-changing requests made with it also send `x-csrf-token` (the session's `csrfToken`).",
        },
      },
    },
  };
}
