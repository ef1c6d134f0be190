// What a system call costs on this machine, for the report's header. Every request of a
// multi-process system is a handful of loopback writes and wakeups, so its CPU per request follows
// this figure from machine to machine (~0.1-0.3 µs on bare metal, ~1 µs and more on virtual
// machines whose guests trap their system calls); PocketBase's one process pays it less often.

/** Timed loops of the probe, of which the fastest counts. */
export const SYSCALL_ROUNDS = 5;

/**
 * Microseconds per getppid(2), the cheapest system call Node exposes (`process.ppid` asks the
 * kernel each time): the fastest of `rounds` timed loops, so that a busy moment of the machine
 * does not count. Includes Node's own call: 1.40 µs where a C loop of getppid took 1.04.
 */
export function syscallMicros({ calls = 20_000, rounds = SYSCALL_ROUNDS } = {}) {
  let best = Infinity;
  let sink = 0;
  for (let r = 0; r < rounds; r++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) sink += process.ppid;
    const ns = Number(process.hrtime.bigint() - started);
    best = Math.min(best, ns / calls / 1000);
  }
  if (sink === 0) throw new Error('process.ppid returned 0');
  return best;
}
