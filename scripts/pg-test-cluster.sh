#!/usr/bin/env bash
# Starts or stops a private, throwaway PostgreSQL cluster for the test suite, listening on
# 127.0.0.1 only, with data and log inside its own directory. Runs the server as `postgres`
# when invoked as root (initdb refuses root).
#   scripts/pg-test-cluster.sh start DIR PORT   -> prints the DATABASE_URL
#   scripts/pg-test-cluster.sh stop DIR
set -euo pipefail
action=$1 dir=$2 port=${3:-55432}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -n "$bindir" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case $action in
start)
  rm -rf "$dir" && mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  as_pg "$bindir/initdb" -D "$dir/data" -U shelfmark --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=800" start >/dev/null \
    || { cat "$dir/server.log" >&2; exit 1; }
  as_pg "$bindir/createdb" -h 127.0.0.1 -p "$port" -U shelfmark shelfmark_test
  echo "postgres://shelfmark@127.0.0.1:$port/shelfmark_test"
  ;;
stop)
  [ -d "$dir/data" ] && as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  ;;
esac
