#!/usr/bin/env bash
# The SQLite and the PostgreSQL passes of the suite at once: each keeps about one core busy, so on
# a machine with two or more they finish in about the time of one (see docs/performance.md, CI).
# Each line is prefixed with its pass; the exit status is the first failing pass's. Which test files
# each pass runs: scripts/test-files.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
(set -o pipefail; pnpm test:sqlite 2>&1 | sed -u 's/^/[sqlite] /') &
sqlite=$!
(set -o pipefail; pnpm test:postgres 2>&1 | sed -u 's/^/[postgres] /') &
postgres=$!
status=0
wait "$sqlite" || status=$?
wait "$postgres" || { code=$?; [ "$status" = 0 ] && status=$code; }
exit "$status"
