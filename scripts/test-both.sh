#!/usr/bin/env bash
# The SQLite and the PostgreSQL passes of the suite at once, each running its files two at a time
# (scripts/test-pass.sh): on a 2-core machine about four processes keep both cores busy.
# Each line is prefixed with its pass, and each pass ends with the seconds it took; the exit status
# is the first failing pass's. Which test files each pass runs: scripts/test-files.sh.
set -uo pipefail
cd "$(dirname "$0")/.."

# Tests start `trailproof` children from the built packages (test/support/processes.ts builds them
# once per test process when the sources changed): built here first, so that the two passes do not
# both write dist/ at once.
pnpm build || exit $?

# pass NAME COMMAND...: COMMAND's lines prefixed with [NAME], then how long it took.
pass() {
  local name=$1 started=$SECONDS code=0
  shift
  (set -o pipefail; "$@" 2>&1 | sed -u "s/^/[$name] /") || code=$?
  echo "[$name] pass took $((SECONDS - started)) s (exit status $code)"
  return "$code"
}

pass sqlite pnpm test:sqlite &
sqlite=$!
pass postgres pnpm test:postgres &
postgres=$!
status=0
wait "$sqlite" || status=$?
wait "$postgres" || { code=$?; [ "$status" = 0 ] && status=$code; }
exit "$status"
