#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL server on 127.0.0.1, and stop it afterwards.
#
#   scripts/with-postgres.sh COMMAND...
#
# The server listens on a free port (JUPYTER_PLANS_PG_PORT to choose one), so a cluster that
# already runs on this machine is never in the way. Its URL is passed in
# JUPYTER_PLANS_TEST_POSTGRES. When that is already set, the
# command runs against that server and nothing is started. As root, PostgreSQL is installed
# from Debian where it is missing; without it the command still runs, and the PostgreSQL
# tests skip (or fail, in CI) with the reason.
set -uo pipefail

if [ -n "${JUPYTER_PLANS_TEST_POSTGRES:-}" ]; then
  exec "$@"
fi
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT="${JUPYTER_PLANS_PG_PORT:-$(free_port)}"

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
BIN="$(find_bin)"
if [ -z "$BIN" ] && [ "$(id -u)" = 0 ]; then
  echo "installing Debian's postgresql for the PostgreSQL tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  BIN="$(find_bin)"
fi
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed and this is not root: the PostgreSQL tests will skip" >&2
  exec "$@"
fi

DIR="$(mktemp -d /tmp/jupyter-plans-pg.XXXXXX)"
as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
stop() {
  as_owner "'$BIN/pg_ctl' -D '$DIR/data' -m fast -w stop" >/dev/null 2>&1
  rm -rf "$DIR"
}
trap stop EXIT
trap 'exit 130' INT TERM

as_owner "'$BIN/initdb' -D '$DIR/data' -A trust -U postgres --no-sync" >"$DIR/initdb.log" 2>&1 \
  || { cat "$DIR/initdb.log" >&2; echo "initdb failed" >&2; exit 1; }
start() {
  as_owner "'$BIN/pg_ctl' -D '$DIR/data' -l '$DIR/log' -w -o \"-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=on -c max_connections=300\" start" >/dev/null
}
# Another program may take the free port between the look and the start: look again.
for attempt in 1 2 3; do
  start && break
  if [ -n "${JUPYTER_PLANS_PG_PORT:-}" ] || [ "$attempt" = 3 ]; then
    cat "$DIR/log" >&2; echo "PostgreSQL did not start on 127.0.0.1:$PORT" >&2; exit 1
  fi
  PORT="$(free_port)"
done
echo "PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT for the tests"

export JUPYTER_PLANS_TEST_POSTGRES="postgresql+psycopg://postgres@127.0.0.1:$PORT/postgres"
"$@"
