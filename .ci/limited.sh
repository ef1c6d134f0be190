# Time limits for the CI's steps, sourced by .ci/run (and by test/unit/ci-limited.test.ts).
# Every step is bounded: a hung step fails with its name, and .ci/run still prints the summary,
# the machine's state and the logs, instead of running into the CI's own limit, which prints
# nothing useful. All steps end by DEADLINE_SECONDS (CI_DEADLINE_SECONDS, default 80 minutes)
# after the start of the shell, well within the CI's 90 minutes.
DEADLINE_SECONDS=${CI_DEADLINE_SECONDS:-4800}

# limited MAX_SECONDS COMMAND...: COMMAND, killed (with its process group) after MAX_SECONDS or
# at the deadline, whichever comes first; its own exit code, or 124 when it ran out of time
limited() {
  local max=$1 left rc errexit=0
  shift
  left=$((DEADLINE_SECONDS - SECONDS))
  if [ "$left" -lt "$max" ]; then max=$left; fi
  if [ "$max" -le 0 ]; then
    echo "ci: no time left before the deadline (${DEADLINE_SECONDS}s) for: $*" >&2
    return 124
  fi
  case $- in *e*) errexit=1 ;; esac
  set +e
  timeout --kill-after=30 "$max" "$@"
  rc=$?
  if [ "$errexit" -eq 1 ]; then set -e; fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "ci: TIMED OUT after ${max}s (stopped): $*" >&2
    return 124
  fi
  return "$rc"
}
