/** What the bench's unit tests share (bench-report, bench-procstat). */

/** A run's metadata, as bench/run.mjs records it. */
export const META = {
  date: '2026-11-27',
  machine: 'test',
  mode: 'full',
  cpus: 2,
  cpuModel: 'cpu',
  memoryGiB: 1,
  node: 'v20',
  postgres: 'PostgreSQL 15',
  store: 'PostgreSQL',
  commit: 'abc',
  loadStart: '0',
  load: {
    autocannon: '9',
    connections: 20,
    pipelining: 1,
    warmupSeconds: 2,
    seconds: 6,
    maxRequests: 1,
    rounds: 3,
    vegeta: 'v12',
  },
  tags: 100,
  users: 10,
  workloads: ['get', 'fixed-rate'],
  seeding: [],
  notes: [],
  clients: { addresses: 1234, requestsPerAddress: 10, atOnce: 1000 },
};
