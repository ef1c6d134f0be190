import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const LIB = join(__dirname, '..', '..', '.ci', 'limited.sh');

/** Runs `script` in bash after sourcing .ci/limited.sh with the given deadline (seconds). */
function bash(script: string, deadline: number) {
  const r = spawnSync('bash', ['-c', `source "${LIB}"; ${script}`], {
    env: { ...process.env, CI_DEADLINE_SECONDS: String(deadline) },
    encoding: 'utf8',
  });
  return { out: r.stdout.trim(), err: r.stderr.trim(), status: r.status };
}

describe('.ci/limited.sh: the CI steps are time-limited', () => {
  it('keeps a step’s own exit code when it ends in time', () => {
    expect(bash('limited 10 true; echo "rc=$?"', 100).out).toBe('rc=0');
    expect(bash('limited 10 bash -c "exit 3"; echo "rc=$?"', 100).out).toBe('rc=3');
  });

  it('stops a step that runs past its own limit, with its process group, and says so (124)', () => {
    const r = bash('limited 1 bash -c "sleep 30 & sleep 30"; echo "rc=$?"', 100);
    expect(r.out).toBe('rc=124');
    expect(r.err).toMatch(/ci: TIMED OUT after 1s \(stopped\): bash -c sleep 30 & sleep 30/);
  });

  it('bounds every step by the deadline, and starts none once it has passed', () => {
    const cut = bash('limited 600 sleep 30; echo "rc=$?"', 1);
    expect(cut.out).toBe('rc=124');
    expect(cut.err).toMatch(/TIMED OUT after 1s/);
    const none = bash('SECONDS=5; limited 600 echo ran; echo "rc=$?"', 5);
    expect(none.out).toBe('rc=124');
    expect(none.err).toMatch(/no time left before the deadline \(5s\) for: echo ran/);
  });

  it('leaves errexit as the caller had it', () => {
    expect(bash('limited 10 true; case $- in *e*) echo on ;; *) echo off ;; esac', 100).out).toBe('off');
    expect(bash('set -e; limited 10 true; case $- in *e*) echo on ;; *) echo off ;; esac', 100).out).toBe(
      'on',
    );
  });
});
