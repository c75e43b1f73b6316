#!/usr/bin/env bash
# The test files of one pass of the suite, one a line, for mocha (package.json's test:* scripts):
#
#   scripts/test-files.sh sqlite     every test file but the browser tests: what Chromium runs
#                                    (the pages' scripts, styles, forms) does not depend on the
#                                    database, the pages' reads are tested on both by the HTTP-level
#                                    console tests, and each browser file costs a Chromium; the
#                                    PostgreSQL pass (the shorter of the two) runs them, all tagged
#   scripts/test-files.sh postgres   those whose first line is `// @database`: they reach the test
#                                    database (through @trailproof/server/testing, a helper under
#                                    test/ that does, or TRAILPROOF_TEST_DATABASE); the others (the
#                                    action's, the schema's, pure functions, SQLite-only modules)
#                                    would only run a second time what the SQLite pass ran.
#   scripts/test-files.sh node24     every test file but the browser tests, test/hostile/ and the
#                                    contract storm (CI's Node 24 pass, .ci/run): what the browser
#                                    runs does not depend on the server's Node, the hostile tests
#                                    measure health under load, which two Node 20 passes (SQLite,
#                                    PostgreSQL) measure beside this one, and the storm's thousands
#                                    of generated requests test the contract's validation, plain
#                                    JavaScript the same on either Node; the server, its threads,
#                                    streams and the built command run on Node 24 in the rest
#
# A second argument picks a part of the pass (scripts/test-pass.sh runs the two one after the other):
#
#   together   the files that run two at a time (mocha --parallel)
#   alone      the files that run one at a time after them: test/hostile/ and those with a
#              `// @alone` line among their first three, which bound the time a server takes to
#              answer while it is under attack (beside another file's work that bound measures the
#              machine's load), or stop the database server that the other files use
#
# test/test-files.test.ts fails on a test file that reaches the database without the tag.
set -euo pipefail
cd "$(dirname "$0")/.."

pass=${1:?usage: scripts/test-files.sh sqlite|postgres|node24 [together|alone]}
part=${2:-all}
# In the order the suite always ran (the packages, the examples, then test/), each folder sorted.
all=$(for root in 'packages/*/src' examples test; do
  # shellcheck disable=SC2086 # the packages' glob expands here
  find $root -name '*.test.ts' -not -path '*/node_modules/*' | LC_ALL=C sort
done)
browser='\.browser\.test\.ts$'

case "$pass" in
  sqlite) files=$(grep -v -E "$browser" <<<"$all") ;;
  node24) files=$(grep -v -E "$browser" <<<"$all" | grep -v -E '^test/hostile/|^test/robustness-contract\.test\.ts$') ;;
  postgres)
    # shellcheck disable=SC2086 # one path a line, none with a space
    files=$(for file in $all; do if IFS= read -r first <"$file" && [ "$first" = '// @database' ]; then echo "$file"; fi; done)
    ;;
  *) echo "scripts/test-files.sh: unknown pass '$pass' (sqlite, postgres or node24)" >&2; exit 2 ;;
esac
alone() { [[ $1 == test/hostile/* ]] || head -n 3 "$1" | grep -q '^// @alone'; }
case "$part" in
  all) ;;
  together | alone)
    chosen=''
    # shellcheck disable=SC2086 # one path a line, none with a space
    for file in $files; do
      if alone "$file"; then [ "$part" = alone ] && chosen+="$file"$'\n'; else [ "$part" = together ] && chosen+="$file"$'\n'; fi
    done
    files=${chosen%$'\n'}
    ;;
  *) echo "scripts/test-files.sh: unknown part '$part' (together or alone)" >&2; exit 2 ;;
esac
echo "test-files: the $pass pass runs $(grep -c . <<<"$files") of the $(wc -l <<<"$all") test files ($part; scripts/test-files.sh says which)" >&2
echo "$files"
