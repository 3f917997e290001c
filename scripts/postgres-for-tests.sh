#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the suite's PostgreSQL run (issue 22) and prints its URL.
# Debian's PostgreSQL (initdb, pg_ctl) in a temp dir, on a free loopback port, owned by the calling
# user, or by the `postgres` system user when called as root (PostgreSQL refuses to run as root).
# Usage: url=$(scripts/postgres-for-tests.sh start DIR); ...; scripts/postgres-for-tests.sh stop DIR
# DIR is made here; its parent must be open to the cluster's owner (e.g. /tmp/verbatim-pg-$$).
set -euo pipefail
action=${1:?start|stop}
dir=${2:?a folder for the cluster}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$action" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U verbatim --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
    # A test cluster: no fsync (a crash loses the cluster, which is thrown away anyway), enough
    # connections for the suite's servers and their pools.
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null
    echo "postgres://verbatim@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
