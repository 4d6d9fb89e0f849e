#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL server on 127.0.0.1:5433, and stop it afterwards.
#
#   scripts/with-postgres.sh COMMAND...
#
# The server's URL is passed in JUPYTER_PLANS_TEST_POSTGRES. When that is already set, the
# command runs against that server and nothing is started. As root, PostgreSQL is installed
# from Debian where it is missing; without it the command still runs, and the PostgreSQL
# tests skip (or fail, in CI) with the reason.
set -uo pipefail

PORT="${JUPYTER_PLANS_PG_PORT:-5433}"
if [ -n "${JUPYTER_PLANS_TEST_POSTGRES:-}" ]; then
  exec "$@"
fi

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
as_owner "'$BIN/pg_ctl' -D '$DIR/data' -l '$DIR/log' -w -o \"-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=on\" start" >/dev/null \
  || { cat "$DIR/log" >&2; echo "PostgreSQL did not start on 127.0.0.1:$PORT" >&2; exit 1; }
echo "PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT for the tests"

export JUPYTER_PLANS_TEST_POSTGRES="postgresql+psycopg://postgres@127.0.0.1:$PORT/postgres"
"$@"
