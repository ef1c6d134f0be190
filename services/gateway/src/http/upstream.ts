import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import {
  ASSERTION_HEADER,
  errors,
  tracingEnabled,
  type AppError,
  type Logger,
  type ServiceName,
} from '@baas/common';
import type { GatewayObserver, UpstreamFailure } from '../ports';
import { header, sendError, type Exchange } from './exchange';
import { withoutConsoleCookie } from './console-cookie';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and what undici sets itself: never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // this server already answered `100 Continue`; passed on, undici refuses the request
  'expect',
]);

/** Headers a client must never be able to pass through to a service. */
const STRIPPED_REQUEST = new Set([ASSERTION_HEADER, 'x-api-key', 'x-request-id']);
/**
 * With tracing on, the client's trace context is the parent of the gateway's server span and the
 * undici instrumentation sends the upstream client span's own: the client's is not passed on.
 */
const STRIPPED_REQUEST_TRACED = new Set([...STRIPPED_REQUEST, 'traceparent', 'tracestate']);

/**
 * Random bytes for trace ids, drawn from the CSPRNG a pool at a time: two `randomBytes` calls per
 * request (each a trip into OpenSSL, with its fork check) were ~3 % of the gateway's CPU.
 */
const TRACE_ID_BYTES = 24;
const tracePool = Buffer.alloc(TRACE_ID_BYTES * 256);
let tracePoolUsed = tracePool.length;

function traceparent(): string {
  if (tracePoolUsed + TRACE_ID_BYTES > tracePool.length) {
    randomFillSync(tracePool);
    tracePoolUsed = 0;
  }
  const at = tracePoolUsed;
  tracePoolUsed += TRACE_ID_BYTES;
  return `00-${tracePool.toString('hex', at, at + 16)}-${tracePool.toString('hex', at + 16, at + 24)}-01`;
}

/** Request bodies of a known length up to this are read whole before they are forwarded. */
export const BUFFERED_BODY_BYTES = 64 * 1024;

/** The length of a body small enough to read whole, or undefined to stream it (or no body). */
function smallBodyLength(headers: IncomingHttpHeaders): number | undefined {
  const length = headers['content-length'];
  if (length === undefined || headers['transfer-encoding'] !== undefined || !/^\d{1,6}$/.test(length))
    return undefined;
  const n = Number(length);
  return n > 0 && n <= BUFFERED_BODY_BYTES ? n : undefined;
}

/** The body (node's parser stops at Content-Length), or undefined when the client went away first. */
function readWhole(req: IncomingMessage, length: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const body = Buffer.allocUnsafe(length);
    let at = 0;
    req.on('data', (chunk: Buffer) => {
      at += chunk.copy(body, at);
    });
    req.once('end', () => resolve(at === length ? body : undefined));
    req.once('error', () => resolve(undefined));
    req.once('close', () => resolve(undefined)); // after 'end' this changes nothing
  });
}

function appendForwarded(value: string | string[] | undefined, add: string): string {
  const prior = Array.isArray(value) ? value.join(', ') : value;
  return prior ? `${prior}, ${add}` : add;
}

export interface ForwardOptions {
  assertion: string;
  /** The admin token is for the gateway only. */
  dropAuthorization: boolean;
  /** The console session cookie is for the gateway and the console's own routes only. */
  dropConsoleCookie: boolean;
  /** Called with the upstream status before any byte of the answer reaches the client. */
  onResponse?: (status: number) => void;
}

/**
 * One service behind the gateway: a keep-alive connection pool (undici) that streams request and
 * answer bodies through without parsing them. The assertion, request id, trace context and
 * X-Forwarded-* are set on the upstream request; an unreachable service is 503, a slow one 504,
 * anything else that breaks before the answer starts 502.
 */
export class Upstream {
  private readonly pool: Pool;

  constructor(
    readonly service: ServiceName,
    origin: string,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
    private readonly observer?: Pick<GatewayObserver, 'upstreamAnswered' | 'upstreamFailed'>,
  ) {
    this.pool = new Pool(origin, {
      connections: 256,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  }

  /**
   * Forwards the request to the service and streams its answer back through the pool's dispatch
   * API (no Readable, AbortController or AsyncResource per request as `request` makes: a fifth of
   * the gateway's CPU on a small answer). A body of known length up to BUFFERED_BODY_BYTES is read
   * whole first and sent in one write; a larger or chunked one is streamed. Returns once the
   * request is on its way; the answer follows.
   */
  async forward(ex: Exchange, opts: ForwardOptions): Promise<void> {
    const { req } = ex;
    let body: Buffer | IncomingMessage | null = null;
    const small = smallBodyLength(req.headers);
    if (small !== undefined) {
      const whole = await readWhole(req, small);
      if (!whole) return; // the client went away before its body was in
      body = whole;
    } else if (
      req.headers['content-length'] !== undefined ||
      req.headers['transfer-encoding'] !== undefined
    ) {
      body = req;
    }
    this.pool.dispatch(
      {
        method: req.method as 'GET',
        path: req.url ?? '/',
        headers: this.requestHeaders(ex, req.headers, opts),
        body,
      },
      new Forwarding(this, ex, opts),
    );
  }

  /** A request got no answer: counted, logged, answered 503, 504 or 502. */
  failed(ex: Exchange, err: unknown): void {
    const failure = upstreamFailure((err as NodeJS.ErrnoException).code);
    this.observer?.upstreamFailed(this.service, failure);
    const mapped = answerFor(failure);
    this.logger.warn(
      {
        err,
        service: this.service,
        requestId: ex.id,
        projectId: ex.project?.projectId,
        status: mapped.status,
      },
      'upstream error',
    );
    sendError(ex, mapped);
  }

  /** An answer that had started broke off: the client's connection is cut, as the answer was. */
  brokeOff(ex: Exchange, err: unknown, clientGone: boolean): void {
    this.logger.warn(
      { err, service: this.service, requestId: ex.id, projectId: ex.project?.projectId },
      'upstream answer broke off',
    );
    if (!clientGone) this.observer?.upstreamFailed(this.service, 'broken');
    ex.res.destroy();
  }

  answered(status: number, started: number): void {
    this.observer?.upstreamAnswered(this.service, status, (performance.now() - started) / 1000);
  }

  /**
   * A GET the gateway makes itself (composed answers): the assertion and request id set as for a
   * forwarded request; the JSON answer and its status, or the AppError a failure maps to.
   */
  async getJson(ex: Exchange, path: string, assertion: string): Promise<{ status: number; body: unknown }> {
    const started = performance.now();
    try {
      const answer = await this.pool.request({
        method: 'GET',
        path,
        headers: { [ASSERTION_HEADER]: assertion, 'x-request-id': ex.id, accept: 'application/json' },
      });
      const body: unknown = await answer.body.json();
      this.observer?.upstreamAnswered(this.service, answer.statusCode, (performance.now() - started) / 1000);
      return { status: answer.statusCode, body };
    } catch (err) {
      const failure = upstreamFailure((err as NodeJS.ErrnoException).code);
      this.observer?.upstreamFailed(this.service, failure);
      this.logger.warn(
        { err, service: this.service, requestId: ex.id, projectId: ex.project?.projectId },
        'upstream error',
      );
      throw answerFor(failure);
    }
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private requestHeaders(
    ex: Exchange,
    incoming: IncomingHttpHeaders,
    opts: ForwardOptions,
  ): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    const traced = tracingEnabled();
    const stripped = traced ? STRIPPED_REQUEST_TRACED : STRIPPED_REQUEST;
    for (const name in incoming) {
      if (HOP_BY_HOP.has(name) || stripped.has(name)) continue;
      const v = incoming[name];
      if (v !== undefined) out[name] = v;
    }
    if (opts.dropAuthorization) delete out.authorization;
    if (opts.dropConsoleCookie && typeof out.cookie === 'string') {
      const rest = withoutConsoleCookie(out.cookie);
      if (rest === undefined) delete out.cookie;
      else out.cookie = rest;
    }
    out[ASSERTION_HEADER] = opts.assertion;
    out['x-request-id'] = ex.id;
    // Tracing off: a trace id of the request's own still ties its services' events together.
    if (!traced && !header(ex.req, 'traceparent')) out.traceparent = traceparent();
    const peer = ex.req.socket.remoteAddress ?? '';
    out['x-forwarded-for'] = appendForwarded(incoming['x-forwarded-for'], peer);
    out['x-forwarded-proto'] = appendForwarded(incoming['x-forwarded-proto'], 'http');
    out['x-forwarded-port'] = appendForwarded(
      incoming['x-forwarded-port'],
      String(ex.req.socket.localPort ?? ''),
    );
    if (incoming.host && !incoming['x-forwarded-host']) out['x-forwarded-host'] = incoming.host;
    return out;
  }
}

/**
 * One forwarded exchange, as undici's dispatch handler: the answer's status and headers are
 * written when they arrive, its body chunks as they come (the upstream paused while the client
 * is slow to read), and a client that goes away aborts the upstream request.
 */
class Forwarding implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private readonly started = performance.now();
  private status = 0;
  /** Bytes of the answer's Content-Length still to come (-1: no length, streamed to its end). */
  private remaining = -1;
  /** The client's answer is ended (its last bytes came with the length's last). */
  private ended = false;
  private clientGone = false;
  private readonly onClose = (): void => {
    if (this.ex.res.writableFinished) return;
    this.clientGone = true;
    this.controller?.abort(new Error('client went away'));
  };
  private readonly onDrain = (): void => this.controller?.resume();

  constructor(
    private readonly upstream: Upstream,
    private readonly ex: Exchange,
    private readonly opts: ForwardOptions,
  ) {
    ex.res.once('close', this.onClose);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.clientGone) controller.abort(new Error('client went away'));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    if (statusCode < 200) return; // informational: this server speaks for itself
    this.status = statusCode;
    this.opts.onResponse?.(statusCode);
    const length = headers['content-length'];
    this.remaining = typeof length === 'string' && /^\d{1,15}$/.test(length) ? Number(length) : -1;
    this.ex.res.writeHead(statusCode, responseHeaders(headers));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const { res } = this.ex;
    if (this.remaining >= 0 && (this.remaining -= chunk.length) === 0) {
      // the last bytes: sent with the end (a small answer leaves in one write, headers and all)
      res.off('close', this.onClose);
      this.ended = true;
      res.end(chunk);
      return;
    }
    if (res.write(chunk)) return;
    controller.pause();
    res.once('drain', this.onDrain);
  }

  onResponseEnd(): void {
    if (!this.ended) {
      this.ex.res.off('close', this.onClose);
      this.ex.res.end();
    }
    this.upstream.answered(this.status, this.started);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    const { res } = this.ex;
    res.off('close', this.onClose);
    res.off('drain', this.onDrain);
    if (this.ended) return; // the client has the whole answer
    if (this.status !== 0) this.upstream.brokeOff(this.ex, err, this.clientGone);
    else if (!this.clientGone) this.upstream.failed(this.ex, err);
  }
}

/** Why a request got no answer, from its error's code: unreachable, too slow, or anything else. */
export function upstreamFailure(code: string | undefined): Exclude<UpstreamFailure, 'broken'> {
  switch (code ?? '') {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
      return 'unavailable';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timeout';
    default:
      return 'reset';
  }
}

function answerFor(failure: Exclude<UpstreamFailure, 'broken'>): AppError {
  switch (failure) {
    case 'unavailable':
      return errors.serviceUnavailable('Upstream service unavailable');
    case 'timeout':
      return errors.gatewayTimeout();
    case 'reset':
      return errors.badGateway();
  }
}

function responseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name in headers) {
    if (HOP_BY_HOP.has(name)) continue;
    const v = headers[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}
