import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy a test can cut and restore, to make one dependency unreachable for one process
 * (a network partition) without touching the shared servers.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private stalled = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => {
      this.track(client);
      // Stalled: the connection is accepted and then nothing ever answers.
      if (this.stalled) return;
      const upstream = net.connect(this.targetPort, this.targetHost);
      this.track(upstream);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      client.pipe(upstream).pipe(client);
      client.on('close', () => {
        upstream.destroy();
        this.pairs.delete(pair);
      });
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => s.destroy());
  }

  /** Drops every connection and refuses new ones, as if the dependency went away. */
  async cut(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    this.stalled = false;
    for (const sock of this.sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Comes back on the same port. */
  async restore(): Promise<void> {
    await this.start(this.port);
  }

  /**
   * Lets nothing through and answers nothing, without closing or refusing anything: a partition
   * that drops packets, where only timeouts tell the client.
   */
  stall(): void {
    this.stalled = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** The network heals: held bytes flow on (as TCP retransmits them). */
  unstall(): void {
    this.stalled = false;
    for (const [client, upstream] of this.pairs) client.pipe(upstream).pipe(client);
  }
}
