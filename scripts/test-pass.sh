#!/usr/bin/env bash
# One pass of the suite (package.json's test:sqlite and test:postgres, CI's Node 24 pass): its files
# two at a time in mocha's parallel mode, then those that must run alone one at a time
# (scripts/test-files.sh says which). Both parts run; the exit status is the first failing one's.
#
#   scripts/test-pass.sh sqlite|postgres|node24
#
# TRAILPROOF_TEST_JOBS sets how many files run at once (2 by default: with the suite's two passes
# side by side, about four processes on a 2-core machine; other counts were not measured).
set -uo pipefail
cd "$(dirname "$0")/.."

pass=${1:?usage: scripts/test-pass.sh sqlite|postgres|node24}
together=$(bash scripts/test-files.sh "$pass" together) || exit $?
alone=$(bash scripts/test-files.sh "$pass" alone) || exit $?
status=0
# shellcheck disable=SC2086 # one path a line, none with a space
pnpm exec mocha --parallel --jobs "${TRAILPROOF_TEST_JOBS:-2}" $together || status=$?
if [ -n "$alone" ]; then
  # shellcheck disable=SC2086
  pnpm exec mocha $alone || { code=$?; [ "$status" = 0 ] && status=$code; }
fi
exit "$status"
