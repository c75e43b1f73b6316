#!/usr/bin/env bash
# The test files of one pass of the suite, one a line, for mocha (package.json's test:* scripts):
#
#   scripts/test-files.sh sqlite     every test file
#   scripts/test-files.sh postgres   those that can reach the test database: each imports
#                                    @trailproof/server/testing, a helper under test/ that does
#                                    (itself or through another helper), or reads
#                                    TRAILPROOF_TEST_DATABASE; the others (the action's, the
#                                    schema's, pure functions, SQLite-only modules) would only run a
#                                    second time what the SQLite pass ran.
#   scripts/test-files.sh node24     every test file but the browser tests (CI's Node 24 pass,
#                                    .ci/run): what the browser runs does not depend on the server's Node
#
# A new test file lands by these rules, by what it imports: nothing to register.
set -euo pipefail
cd "$(dirname "$0")/.."

pass=${1:?usage: scripts/test-files.sh sqlite|postgres|node24}
# In the order the suite always ran (the packages, the examples, then test/), each folder sorted.
all=$(for root in 'packages/*/src' examples test; do
  # shellcheck disable=SC2086 # the packages' glob expands here
  find $root -name '*.test.ts' -not -path '*/node_modules/*' | LC_ALL=C sort
done)
browser='\.browser\.test\.ts$'

case "$pass" in
  sqlite) files=$all ;;
  node24) files=$(grep -v -E "$browser" <<<"$all") ;;
  postgres)
    reaches='@trailproof/server/testing|TRAILPROOF_TEST_DATABASE'
    # Helpers (not tests) that reach it, by file name, directly or through another helper (until no
    # new one turns up): a test importing one reaches it too.
    pattern=$reaches
    previous=''
    while :; do
      helpers=$(grep -rlE --include='*.ts' "$pattern" packages/*/src test examples | grep -v -E '\.test\.ts$' | sed -E 's|.*/||; s|\.ts$||' | LC_ALL=C sort -u | paste -sd'|' -)
      if [ "$helpers" = "$previous" ]; then break; fi
      previous=$helpers
      pattern="$reaches|/($helpers)\\.ts"
    done
    # shellcheck disable=SC2086 # one path a line, none with a space
    files=$(grep -l -E "$pattern" $all) || [ $? = 1 ]
    ;;
  *) echo "scripts/test-files.sh: unknown pass '$pass' (sqlite, postgres or node24)" >&2; exit 2 ;;
esac
echo "test-files: the $pass pass runs $(wc -l <<<"$files") of the $(wc -l <<<"$all") test files (scripts/test-files.sh says which)" >&2
echo "$files"
