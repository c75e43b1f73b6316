#!/usr/bin/env bash
# Reads a test log on stdin and prints what failed: each pass's mocha failure section (from
# "N failing" to the pass's end), or, where no pass reported a failure (lint, type-check, a crash),
# the log's last 60 lines. Lines may carry a pass prefix such as [sqlite].
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
sed 's/\x1b\[[0-9;]*m//g' > "$log"
awk '
  { prefix = ""; if (match($0, /^\[[a-z0-9]+\] /)) prefix = substr($0, 1, RLENGTH) }
  $0 ~ /^(\[[a-z0-9]+\] )? *[0-9]+ failing$/ { on[prefix] = 1; found = 1 }
  on[prefix] { print }
  $0 ~ /pass took [0-9]+ s/ { on[prefix] = 0 }
  END { exit found ? 0 : 3 }
' "$log" || tail -n 60 "$log"
