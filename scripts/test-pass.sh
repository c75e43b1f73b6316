#!/usr/bin/env bash
# One pass of the suite (package.json's test:sqlite and test:postgres, CI's Node 24 pass): its files
# two at a time in mocha's parallel mode, then those that must run alone one at a time
# (scripts/test-files.sh says which). Both parts run; the exit status is the first failing one's.
# A failing part's failures are printed again at the pass's end, after a line "test-pass: what
# failed ...": the alone part's output would otherwise bury the first part's (scripts/failures.sh).
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
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# part NAME MOCHA-ARGS...: mocha's output shown as it comes and kept in $logs/NAME.
part() {
  local name=$1
  shift
  pnpm exec mocha "$@" 2>&1 | tee "$logs/$name"
  return "${PIPESTATUS[0]}"
}
status=0
failed=()
# shellcheck disable=SC2086 # one path a line, none with a space
part together --parallel --jobs "${TRAILPROOF_TEST_JOBS:-2}" $together || { status=$?; failed+=("together $status"); }
if [ -n "$alone" ]; then
  # shellcheck disable=SC2086
  part alone $alone || { code=$?; [ "$status" = 0 ] && status=$code; failed+=("alone $code"); }
fi
for entry in "${failed[@]}"; do
  name=${entry% *}
  echo "test-pass: what failed in the files run $name (mocha's exit status ${entry#* }), again:"
  # From mocha's "N failing" to its end; its last lines where it printed none (a crash).
  sed 's/\x1b\[[0-9;]*m//g' "$logs/$name" | sed -n '/^ *[0-9][0-9]* failing$/,$p' | grep . || tail -n 40 "$logs/$name"
done
exit "$status"
