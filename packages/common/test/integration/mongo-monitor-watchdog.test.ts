import { MongoClient } from 'mongodb';
import { MongoMonitorWatchdog } from '../../src/mongo';
import { describeOnStore, infra, requireInfra, uniqueDbName } from '../../../../test/support/infra';
import { TcpProxy } from '../../../../test/support/tcp-proxy';
import { until } from '../../../../test/support/until';

/**
 * The driver's server monitor, stuck as it gets after a server restart: its connection's socket is
 * destroyed (the server's FIN arrived) but the connection has not yet seen `close` when a check
 * starts. Reached here through the driver's internals (the test stands in for the race), on a
 * real server; the watchdog only uses the public API.
 */
interface InternalMonitor {
  connection: { socket: { destroy(): void } } | null;
  requestCheck(): void;
}
function monitorOf(client: MongoClient): InternalMonitor {
  const topology = (
    client as unknown as { topology: { s: { servers: Map<string, { monitor: InternalMonitor }> } } }
  ).topology;
  const [server] = [...topology.s.servers.values()];
  return server!.monitor;
}

interface Heartbeats {
  started: number;
  ended: number;
  lastEndedAt: number;
}
/** A client as connectMongo makes it (poll monitoring), with heartbeats counted. */
async function client(url = infra.mongoUrl): Promise<{ client: MongoClient; heartbeats: () => Heartbeats }> {
  const c = new MongoClient(url, {
    serverMonitoringMode: 'poll',
    heartbeatFrequencyMS: 1000,
    serverSelectionTimeoutMS: 2000,
    connectTimeoutMS: 2000,
  });
  const n: Heartbeats = { started: 0, ended: 0, lastEndedAt: 0 };
  const ended = () => {
    n.ended++;
    n.lastEndedAt = Date.now();
  };
  c.on('serverHeartbeatStarted', () => n.started++);
  c.on('serverHeartbeatSucceeded', ended);
  c.on('serverHeartbeatFailed', ended);
  await c.connect();
  await c.db('admin').command({ ping: 1 });
  // the first poll check runs on the monitor's own connection
  await until(() => n.ended >= 2 && monitorOf(c).connection !== null, 5000, 'a second heartbeat', 50);
  return { client: c, heartbeats: () => ({ ...n }) };
}

/**
 * Starts a check in the window between the socket's destruction and the connection's `close`:
 * the driver runs a requested check at once only when the last one ended more than
 * minHeartbeatFrequencyMS (500 ms) ago, so it waits for that (the next regular one is 1 s after).
 */
async function wedge(c: MongoClient, heartbeats: () => Heartbeats): Promise<void> {
  await until(() => heartbeats().lastEndedAt > 0, 5000, 'a heartbeat', 50);
  const wait = heartbeats().lastEndedAt + 600 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const monitor = monitorOf(c);
  monitor.connection!.socket.destroy();
  monitor.requestCheck();
}

describeOnStore('mongodb', 'MongoDB server monitor watchdog', () => {
  const clients: MongoClient[] = [];
  const watchdogs: MongoMonitorWatchdog[] = [];
  beforeAll(async () => {
    await requireInfra('mongo');
  });
  afterEach(async () => {
    for (const w of watchdogs.splice(0)) w.stop();
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  });

  it('the driver alone never ends a check started on a socket destroyed before its close (if this fails, the driver is fixed: drop the watchdog)', async () => {
    const { client: c, heartbeats } = await client();
    clients.push(c);
    await wedge(c, heartbeats);
    await new Promise((r) => setTimeout(r, 300));
    const at = heartbeats();
    // ten heartbeat periods and five connect timeouts later, the check it started has not ended
    await new Promise((r) => setTimeout(r, 5000));
    expect(heartbeats().ended).toBe(at.ended);
    expect(heartbeats().started).toBe(at.started);
  }, 20_000);

  /** A watchdog that acts fast (stuck after 1.5 s), its log lines kept. */
  function quickWatchdog(c: MongoClient) {
    const logs: string[] = [];
    const log = (_o: unknown, msg?: string) => void logs.push(String(msg));
    const watchdog = new MongoMonitorWatchdog(c, {
      stuckAfterMs: 1500,
      intervalMs: 100,
      retryMs: 200,
      logger: { warn: log, error: log, info: log },
    });
    watchdogs.push(watchdog);
    return { logs, watchdog };
  }

  it('connects the client again when a heartbeat outlives stuckAfterMs, and the same collection works after it', async () => {
    const { client: c, heartbeats } = await client();
    clients.push(c);
    const { logs, watchdog } = quickWatchdog(c);
    const coll = c.db(uniqueDbName('watchdog')).collection<{ n: number }>('things');
    await coll.insertOne({ n: 1 });

    await wedge(c, heartbeats);
    const before = Date.now();
    await until(() => watchdog.recoveries === 1, 10_000, 'the watchdog to connect the client again');
    expect(Date.now() - before).toBeGreaterThanOrEqual(1400);
    expect(logs[0]).toMatch(/monitor stuck/);
    // heartbeats run again, and what was taken from the client before still reaches the server
    const at = heartbeats().ended;
    await until(() => heartbeats().ended > at + 1, 5000, 'heartbeats after the recovery');
    await coll.insertOne({ n: 2 });
    expect(await coll.countDocuments()).toBe(2);
    await coll.drop();
    expect(watchdog.recoveries).toBe(1);
  }, 30_000);

  it('leaves a client with heartbeats that end alone, and stops when its owner closes the client', async () => {
    const { client: c } = await client();
    const watchdog = new MongoMonitorWatchdog(c, { stuckAfterMs: 1500, intervalMs: 100 });
    watchdogs.push(watchdog);
    await new Promise((r) => setTimeout(r, 2500));
    expect(watchdog.recoveries).toBe(0);
    expect(watchdog.running).toBe(true);
    await c.close();
    // closed by its owner: nothing more to watch, and nothing is taken for a stuck heartbeat
    expect(watchdog.running).toBe(false);
    expect(watchdog.check(Date.now() + 60_000)).toBe(false);
  }, 20_000);
  /** A client that reaches the server through a proxy the test can cut, with a quick watchdog. */
  async function behindProxy() {
    const target = new URL(infra.mongoUrl);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 27017));
    await proxy.start();
    const { client: c, heartbeats } = await client(
      `mongodb://127.0.0.1:${proxy.port}/?directConnection=true`,
    );
    clients.push(c);
    return { c, heartbeats, proxy, ...quickWatchdog(c) };
  }

  it('keeps connecting again while the server is away, and is back as soon as it answers', async () => {
    const { c, heartbeats, proxy, logs, watchdog } = await behindProxy();
    await wedge(c, heartbeats);
    await proxy.cut();
    await until(() => logs.some((l) => /could not connect again yet/.test(l)), 15_000, 'a refused attempt');
    expect(watchdog.recoveries).toBe(0);
    await proxy.restore();
    await until(() => watchdog.recoveries === 1, 15_000, 'the watchdog to connect the client again');
    const coll = c.db(uniqueDbName('watchdog')).collection<{ n: number }>('things');
    await coll.insertOne({ n: 1 });
    expect(await coll.countDocuments()).toBe(1);
    await coll.drop();
    await proxy.cut();
  }, 40_000);

  it('stops connecting again once stopped (closeMongo at shutdown)', async () => {
    const { c, heartbeats, proxy, logs, watchdog } = await behindProxy();
    await wedge(c, heartbeats);
    await proxy.cut();
    await until(() => logs.some((l) => /could not connect again yet/.test(l)), 15_000, 'a refused attempt');
    watchdog.stop();
    await proxy.restore();
    // the attempt under way may still end; after it, none more
    await new Promise((r) => setTimeout(r, 3000));
    const attempts = logs.filter((l) => /could not connect again yet|connected again/.test(l)).length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(logs.filter((l) => /could not connect again yet|connected again/.test(l)).length).toBe(attempts);
    expect(watchdog.recoveries).toBe(0);
    await proxy.cut();
  }, 40_000);
});
