#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster on a loopback port, then removes it.
#
#   scripts/with-postgres.sh CMD [ARGS...]
#
# TRAILPROOF_PG_FSYNC=off (the test suite's, package.json's test:postgres) starts the cluster without
# fsync: its data need only outlive a stopped or killed server, which the system's page cache keeps,
# not a power cut, and each test store's migrations, committed one at a time, waited 0.4-1.4 s on the
# disk. The benchmarks keep fsync on: their figures include the disk's.
#
# Sets PGHOST, PGPORT, PGUSER, PGDATABASE and DATABASE_URL for CMD, and TRAILPROOF_PG_CTL: a
# command prefix that runs pg_ctl on this cluster (tests use it to stop and start the server).
# As root, the cluster runs as the `postgres` user (PostgreSQL refuses to run as root). No Docker.
set -euo pipefail

# A fresh machine gets PostgreSQL's server from Debian's packages first.
bindir=$(bash "$(dirname "$0")/ensure-postgres.sh")

dir=$(mktemp -d /tmp/trailproof-pg.XXXXXX)
run_as=()
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$dir"
  run_as=(runuser -u postgres --)
fi
port=${TRAILPROOF_PG_PORT:-$(( 20000 + RANDOM % 20000 ))}

cleanup() {
  "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

"${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >/dev/null
cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
fsync = ${TRAILPROOF_PG_FSYNC:-on}
CONF
"${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null

export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres
export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
export TRAILPROOF_PG_CTL="${run_as[*]} $bindir/pg_ctl -D $dir/data -l $dir/server.log -w"
"$@"
