import type http from 'node:http';

/** How often, while stopping, connections that went idle are closed. */
const SWEEP_MS = 50;

export interface Drain {
  /**
   * Stops accepting connections and resolves once every connection is closed: idle ones at
   * once, each busy one after its answer, which tells the client to close (`Connection: close`).
   */
  stop(): Promise<void>;
}

/**
 * Graceful stop of an HTTP server whose clients keep connections alive (the gateway's pool to
 * the services, an ingress to the gateway). `server.close()` alone stops new connections and
 * closes the idle ones, but a connection busy at that moment stays open after its answer, as
 * keep-alive asks, and the server never finishes closing: the process would wait for its hard
 * exit and skip its closers (NATS drain, pools, telemetry flush). So the answers of requests in
 * flight, and of any request that still arrives on an open connection, carry `Connection: close`
 * (Node then ends the socket after the answer), and while stopping, connections that went idle
 * after an answer whose headers were already out (a streamed download) are closed.
 * Call before the server has handled any request.
 */
export function drainOnStop(server: http.Server): Drain {
  const inFlight = new Set<http.ServerResponse>();
  let stopping = false;
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (stopping) closeAfter(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        stopping = true;
        for (const res of inFlight) closeAfter(res);
        const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
        sweep.unref();
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

function closeAfter(res: http.ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}
