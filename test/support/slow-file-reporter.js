/**
 * A jest reporter for CI (jest.config.js adds it when CI is set): a test file that is still
 * running after 2, 5, 10, 20... minutes is named on stderr while it runs, so that a run stopped
 * from outside (the CI's time limit) still says where it was; at the end, the slowest files.
 * Each file's tests are bounded by testTimeout, but a file of many tests that each wait for a
 * wedged server can take most of an hour, and jest prints a file's name only when it ends.
 */
const WARN_AFTER_SECONDS = [120, 300, 600, 1200, 2400];
const CHECK_EVERY_MS = 15_000;
const SLOWEST = 10;

class SlowFileReporter {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.warnAfter = options.warnAfterSeconds ?? WARN_AFTER_SECONDS;
    this.write = options.write ?? ((line) => process.stderr.write(`${line}\n`));
    this.now = options.now ?? (() => Date.now());
    /** path -> { started, warned } */
    this.running = new Map();
    this.durations = [];
    this.timer = null;
  }

  name(path) {
    return path.startsWith(`${this.rootDir}/`) ? path.slice(this.rootDir.length + 1) : path;
  }

  onRunStart() {
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  onTestFileStart(test) {
    this.running.set(test.path, { started: this.now(), warned: 0 });
  }

  onTestFileResult(test) {
    const run = this.running.get(test.path);
    if (!run) return;
    this.running.delete(test.path);
    this.durations.push({ path: test.path, seconds: (this.now() - run.started) / 1000 });
  }

  /** Names each running file once per threshold it has passed since the last check. */
  check() {
    for (const [path, run] of this.running) {
      const seconds = (this.now() - run.started) / 1000;
      while (run.warned < this.warnAfter.length && seconds >= this.warnAfter[run.warned]) {
        run.warned += 1;
        this.write(
          `[slow test file] ${this.name(path)} still running after ${Math.round(seconds)} s ` +
            `(${new Date(this.now()).toISOString()})`,
        );
      }
    }
  }

  onRunComplete() {
    if (this.timer) clearInterval(this.timer);
    const slowest = [...this.durations].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
    if (slowest.length === 0) return;
    const total = this.durations.reduce((sum, d) => sum + d.seconds, 0);
    this.write(`Slowest test files (of ${this.durations.length}, ${Math.round(total)} s in all):`);
    for (const d of slowest) this.write(`  ${d.seconds.toFixed(1).padStart(7)} s  ${this.name(d.path)}`);
  }
}

module.exports = SlowFileReporter;
