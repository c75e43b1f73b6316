#!/usr/bin/env bash
# Installs PostgreSQL's server from Debian's packages when its binaries are missing (as root, or
# through sudo), and prints the folder of its binaries (initdb, pg_ctl).
set -euo pipefail

find_bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true; }
bindir=$(find_bindir)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  as_root=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "ensure-postgres: PostgreSQL server binaries not found; install them: apt-get install postgresql" >&2; exit 1; }
    as_root=(sudo)
  fi
  echo "ensure-postgres: installing PostgreSQL from Debian's packages" >&2
  "${as_root[@]}" apt-get update -qq >&2
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
  bindir=$(find_bindir)
fi
echo "$bindir"
