import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { META } from './bench-fixtures';

/**
 * bench/lib/procstat.mjs: the CPU time the bench charges to a process (idle CPU, the gateway's
 * cost per request, bench/cpu-cost.mjs). An ES module, which this tier does not load, so a node
 * child imports it and prints what it returned.
 */
const PROCSTAT = join(__dirname, '..', '..', 'bench', 'lib', 'procstat.mjs');
const REPORT = join(__dirname, '..', '..', 'bench', 'lib', 'report.mjs');

function run(script: string): unknown {
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  );
}

const linux = existsSync('/proc/self/stat');

/**
 * A worker thread's body (CommonJS) that uses 400 ms of CPU of its own: counted on its own clock
 * where the kernel keeps one (a loaded machine stretches the wall-clock time, not the CPU time),
 * else 400 ms of wall-clock time.
 */
const BURN_400_MS = `const fs = require('node:fs');
const own = () => Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
if (fs.existsSync('/proc/thread-self/schedstat')) {
  const s = own();
  while (own() - s < 4e8) for (let i = 0; i < 1e5; i++);
} else {
  const end = Date.now() + 400;
  while (Date.now() < end);
}`;

describe('bench CPU clock', () => {
  it('reads the scheduler nanoseconds where the kernel keeps them', () => {
    if (!linux) throw new Error('the bench reads /proc: run this tier on Linux');
    const out = run(`import { CPU_CLOCK, CPU_CLOCK_NOTE } from ${JSON.stringify(PROCSTAT)};
process.stdout.write(JSON.stringify({ clock: CPU_CLOCK, note: CPU_CLOCK_NOTE }));`) as {
      clock: string;
      note: string;
    };
    expect(out.clock).toBe(existsSync('/proc/self/schedstat') ? 'schedstat' : 'ticks');
    expect(out.note).toContain(out.clock === 'schedstat' ? 'schedstat' : 'ticks');
  });

  it('loses the time of a thread that exited, which utime+stime keeps', () => {
    // 400 ms of busy loop on a worker thread while the main thread waits for it
    const out = run(`import { Worker } from 'node:worker_threads';
import { cpuSeconds, schedstatSeconds, tickSeconds } from ${JSON.stringify(PROCSTAT)};
const pid = process.pid;
const before = { cpu: cpuSeconds(pid), sched: schedstatSeconds(pid), ticks: tickSeconds(pid) };
await new Promise((resolve, reject) => {
  const w = new Worker(${JSON.stringify(BURN_400_MS)}, { eval: true, execArgv: [] });
  w.on('exit', resolve);
  w.on('error', reject);
});
// the worker's thread has exited: its time is in utime+stime, not in the live threads' sum
const during = { cpu: cpuSeconds(pid) - before.cpu, sched: schedstatSeconds(pid) - before.sched, ticks: tickSeconds(pid) - before.ticks };
process.stdout.write(JSON.stringify(during));`) as { cpu: number; sched: number; ticks: number };
    expect(out.ticks).toBeGreaterThanOrEqual(0.35);
    // the limit procstat.mjs states: a thread that exited inside the window is not in the sum
    if (existsSync('/proc/self/schedstat')) {
      expect(out.sched).toBeLessThan(0.2);
      expect(out.cpu).toBeCloseTo(out.sched, 2);
    } else expect(out.cpu).toBeCloseTo(out.ticks, 2);
  });

  it('counts a live worker thread in the schedstat sum', () => {
    if (!existsSync('/proc/self/schedstat')) throw new Error('this kernel keeps no schedstat');
    const out = run(`import { Worker } from 'node:worker_threads';
import { schedstatSeconds, tickSeconds } from ${JSON.stringify(PROCSTAT)};
const pid = process.pid;
const sab = new SharedArrayBuffer(4);
const flag = new Int32Array(sab);
const w = new Worker(\`const { workerData } = require('node:worker_threads');
const f = new Int32Array(workerData);
${BURN_400_MS}
Atomics.store(f, 0, 1); Atomics.notify(f, 0);
Atomics.wait(f, 0, 1);\`, { eval: true, workerData: sab, execArgv: [] });
const s0 = schedstatSeconds(pid), t0 = tickSeconds(pid);
while (Atomics.load(flag, 0) === 0) await new Promise((r) => setTimeout(r, 10));
// the worker is alive (waiting) when the second reading is taken
const during = { sched: schedstatSeconds(pid) - s0, ticks: tickSeconds(pid) - t0 };
Atomics.store(flag, 0, 2); Atomics.notify(flag, 0);
await w.terminate();
process.stdout.write(JSON.stringify(during));`) as { sched: number; ticks: number };
    expect(out.sched).toBeGreaterThanOrEqual(0.35);
    // the two clocks agree within a few ticks on a busy thread
    expect(Math.abs(out.sched - out.ticks)).toBeLessThan(0.1);
  });

  it('gives 0 for a process that is gone', () => {
    const out = run(`import { cpuSeconds, schedstatSeconds, tickSeconds } from ${JSON.stringify(PROCSTAT)};
process.stdout.write(JSON.stringify([cpuSeconds(2 ** 30), schedstatSeconds(2 ** 30), tickSeconds(2 ** 30)]));`);
    expect(out).toEqual([0, 0, 0]);
  });

  it("says in the idle-CPU section which clock the run read (earlier runs' results: ticks)", () => {
    const meta = { ...META, workloads: ['idle-cpu'] };
    const idle = (extra: object) =>
      run(`import * as m from ${JSON.stringify(REPORT)};
process.stdout.write(JSON.stringify(m.renderMarkdown({ meta: ${JSON.stringify(meta)}, systems: [{ key: 'ours' }], results: { idleCpu: ${JSON.stringify(
        { projects: 1000, seconds: 60, percentOfCore: 0.9, byGroup: { nats: 0.3 }, ...extra },
      )} } })));`) as string;
    expect(idle({ clockNote: 'time on the CPU of every thread' })).toContain(
      'over 60 s idle (time on the CPU of every thread)',
    );
    expect(idle({})).toContain('over 60 s idle (utime+stime from /proc)');
  });
});
