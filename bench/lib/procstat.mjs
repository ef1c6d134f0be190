// Our processes and what they cost, read from /proc: the stack's pid files (.stack/pids/*.pid,
// written by scripts/stack.mjs in native mode), PostgreSQL (the postmaster listening on the port
// of POSTGRES_ADMIN_URL and all its children) and Redis (the process on REDIS_URL's port).
// Linux only; elsewhere, or in Docker mode, the memory and idle-CPU sections say n/a.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SERVICES = ['gateway', 'auth', 'data', 'storage', 'mail', 'janitor'];
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

const alive = (pid) => fs.existsSync(`/proc/${pid}/stat`);

/** { name: pid } of what the stack started and still runs (services and infrastructure). */
export function stackPids() {
  const dir = path.join(ROOT, '.stack', 'pids');
  if (!fs.existsSync(dir)) return {};
  const out = {};
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.pid'))) {
    try {
      const { pid } = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      if (pid && alive(pid)) out[f.slice(0, -4)] = pid;
    } catch {
      // a pid file being rewritten: skip it
    }
  }
  return out;
}

function listenerPid(port) {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const m = /pid=(\d+)/.exec(out);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

function children(ppid) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Every process of ours as groups { name: [pids] }: each service and piece of infrastructure the
 * stack started, PostgreSQL (postmaster and backends) and Redis when they listen locally.
 */
export function ourProcessGroups(env) {
  const groups = Object.fromEntries(Object.entries(stackPids()).map(([k, pid]) => [k, [pid]]));
  const pgPort = Number(new URL(env.POSTGRES_ADMIN_URL ?? 'postgres://127.0.0.1:5432/').port || 5432);
  const postmaster = listenerPid(pgPort);
  if (postmaster && !Object.values(groups).flat().includes(postmaster))
    groups.postgres = [postmaster, ...children(postmaster)];
  const redis = env.REDIS_URL ? listenerPid(Number(new URL(env.REDIS_URL).port || 6379)) : null;
  if (redis && !Object.values(groups).flat().includes(redis)) groups.redis = [redis];
  return groups;
}

/** Resident set size in MB (VmRSS of /proc/<pid>/status); NaN when the process is gone. */
export function rssMB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * How CPU time is read: `schedstat`, the scheduler's nanoseconds on the CPU of each thread
 * (/proc/<pid>/task/<tid>/schedstat), where the kernel keeps them; else `ticks`, utime + stime
 * of /proc/<pid>/stat, sampled at each clock tick (10 ms at 100 Hz). A tick is charged whole to
 * whatever runs at that instant, so a process that wakes for a few hundred microseconds at a time
 * is counted in lumps: over a 60-s idle window or a few thousand requests a small process got
 * 5-30 ticks, a sampling error of 20-50 %. Threads that exit inside a measured window are not
 * in the schedstat sum (the services', Redis' and NATS' threads live as long as their process).
 */
export const CPU_CLOCK =
  fs.existsSync('/proc/self/task') && fs.existsSync('/proc/self/schedstat') ? 'schedstat' : 'ticks';

/** What the report says of CPU_CLOCK. */
export const CPU_CLOCK_NOTE =
  CPU_CLOCK === 'schedstat'
    ? 'time on the CPU of every thread, in ns, from /proc/<pid>/task/*/schedstat'
    : 'utime+stime from /proc, in clock ticks';

/** CPU seconds a process has used so far (see CPU_CLOCK); 0 when it is gone. */
export function cpuSeconds(pid) {
  return CPU_CLOCK === 'schedstat' ? schedstatSeconds(pid) : tickSeconds(pid);
}

/** The sum of the run time of a process's live threads, in seconds; 0 when it is gone. */
export function schedstatSeconds(pid) {
  let tasks;
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  let ns = 0;
  for (const tid of tasks) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return ns / 1e9;
}

/** utime + stime of a process (every thread, the exited ones too), in seconds; 0 when it is gone. */
export function tickSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return 0;
  }
}

/** RSS (MB) of each of our services now: { gateway: 71.2, ... }; {} without pid files. */
export function serviceRss() {
  const pids = stackPids();
  return Object.fromEntries(SERVICES.filter((s) => pids[s]).map((s) => [s, rssMB(pids[s])]));
}

/**
 * Samples a process's RSS every `everyMs` while `task()` runs; returns the task's result and
 * the peak seen (MB).
 */
export async function peakRssDuring(pid, task, everyMs = 10) {
  let peak = rssMB(pid);
  const timer = setInterval(() => {
    const r = rssMB(pid);
    if (r > peak) peak = r;
  }, everyMs);
  try {
    const result = await task();
    return { result, peakMB: Math.max(peak, rssMB(pid)) };
  } finally {
    clearInterval(timer);
  }
}
