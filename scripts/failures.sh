#!/usr/bin/env bash
# Reads a test log on stdin and prints what failed: each pass's mocha failure sections (from
# "N failing", or test-pass.sh's repeat of them, to the pass's end), or, where no pass reported a
# failure (lint, type-check, a crash), the log's last 60 lines. Lines may carry a pass prefix such
# as [sqlite].
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
sed 's/\x1b\[[0-9;]*m//g' > "$log"
# scripts/test-pass.sh prints a failing part's failures again at its pass's end, after a line
# "test-pass: what failed": where there is one, from there (the part run alone after the failing
# one would bury mocha's first section), else from mocha's own "N failing".
start='^(\[[a-z0-9]+\] )? *[0-9]+ failing$'
if grep -q -E '^(\[[a-z0-9]+\] )?test-pass: what failed' "$log"; then start='^(\[[a-z0-9]+\] )?test-pass: what failed'; fi
START=$start awk '
  { prefix = ""; if (match($0, /^\[[a-z0-9]+\] /)) prefix = substr($0, 1, RLENGTH) }
  $0 ~ ENVIRON["START"] { on[prefix] = 1; found = 1 }
  on[prefix] { print }
  $0 ~ /pass took [0-9]+ s/ { on[prefix] = 0 }
  END { exit found ? 0 : 3 }
' "$log" || tail -n 60 "$log"
