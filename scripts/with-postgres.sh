#!/usr/bin/env bash
# Run a command with a throwaway PostgreSQL server on 127.0.0.1, and PgBouncer in front of it in
# transaction pooling, and stop both afterwards.
#
#   scripts/with-postgres.sh COMMAND...
#
# Each listens on a free port (JUPYTER_PLANS_PG_PORT and JUPYTER_PLANS_PGBOUNCER_PORT to choose
# them), so a cluster that already runs on this machine is never in the way. The server's URL is
# passed in JUPYTER_PLANS_TEST_POSTGRES, PgBouncer's in JUPYTER_PLANS_TEST_PGBOUNCER (any
# database name given to it reaches the server's database of that name). When
# JUPYTER_PLANS_TEST_POSTGRES is already set, the command runs against that server and nothing
# is started. JUPYTER_PLANS_PG_MAX_CONNECTIONS sets the server's max_connections (300 by default;
# `make bench` measures a team on 100, a PostgreSQL server's own default). As root, PostgreSQL
# and PgBouncer are installed from Debian where they are missing; without them the command still
# runs, and their tests skip (or fail, in CI) with the reason.
set -uo pipefail

if [ -n "${JUPYTER_PLANS_TEST_POSTGRES:-}" ]; then
  exec "$@"
fi
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
install() {  # Debian packages, as root only
  [ "$(id -u)" = 0 ] || return 0
  echo "installing Debian's $* for the PostgreSQL tests"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
PORT="${JUPYTER_PLANS_PG_PORT:-$(free_port)}"

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
BIN="$(find_bin)"
if [ -z "$BIN" ]; then
  install postgresql
  BIN="$(find_bin)"
fi
if [ -z "$BIN" ]; then
  echo "PostgreSQL is not installed and this is not root: the PostgreSQL tests will skip" >&2
  exec "$@"
fi
PGBOUNCER="$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null)"
if [ -z "$PGBOUNCER" ]; then
  install pgbouncer
  PGBOUNCER="$(command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null)"
fi

DIR="$(mktemp -d "${TMPDIR:-/tmp}/jupyter-plans-pg.XXXXXX")"
as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
stop() {
  [ -f "$DIR/pgbouncer.pid" ] && kill "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null
  as_owner "'$BIN/pg_ctl' -D '$DIR/data' -m fast -w stop" >/dev/null 2>&1
  rm -rf "$DIR"
}
trap stop EXIT
trap 'exit 130' INT TERM

as_owner "'$BIN/initdb' -D '$DIR/data' -A trust -U postgres --no-sync" >"$DIR/initdb.log" 2>&1 \
  || { cat "$DIR/initdb.log" >&2; echo "initdb failed" >&2; exit 1; }
start() {
  as_owner "'$BIN/pg_ctl' -D '$DIR/data' -l '$DIR/log' -w -o \"-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=on -c max_connections=${JUPYTER_PLANS_PG_MAX_CONNECTIONS:-300}\" start" >/dev/null
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

# PgBouncer in transaction pooling, as a team puts it in front of the server (docs/teams.md).
# It does not run as root, so it runs as the server's owner.
start_pgbouncer() {
  cat >"$DIR/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$PORT
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/userlist.txt
admin_users = postgres
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
max_db_connections = 40
server_reset_query =
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
INI
  # postgres, and plans: a team's role without superuser rights (the scale benchmark's).
  printf '"postgres" ""\n"plans" ""\n' >"$DIR/userlist.txt"
  [ "$(id -u)" = 0 ] && chown postgres "$DIR/pgbouncer.ini" "$DIR/userlist.txt"
  as_owner "ulimit -n 4096 2>/dev/null; '$PGBOUNCER' -d '$DIR/pgbouncer.ini'" >/dev/null 2>&1 || return 1
  for _ in $(seq 100); do  # it forks and listens a moment later
    "$BIN/pg_isready" -q -h 127.0.0.1 -p "$BOUNCER_PORT" -U postgres -d postgres && return 0
    sleep 0.05
  done
  return 1
}
if [ -n "$PGBOUNCER" ]; then
  BOUNCER_PORT="${JUPYTER_PLANS_PGBOUNCER_PORT:-$(free_port)}"
  for attempt in 1 2 3; do
    start_pgbouncer && break
    [ -f "$DIR/pgbouncer.pid" ] && kill "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null && rm -f "$DIR/pgbouncer.pid"
    if [ -n "${JUPYTER_PLANS_PGBOUNCER_PORT:-}" ] || [ "$attempt" = 3 ]; then
      cat "$DIR/pgbouncer.log" >&2; echo "PgBouncer did not start on 127.0.0.1:$BOUNCER_PORT" >&2
      exit 1
    fi
    BOUNCER_PORT="$(free_port)"
  done
  echo "$("$PGBOUNCER" --version | head -n 1) on 127.0.0.1:$BOUNCER_PORT (transaction pooling) for the tests"
  export JUPYTER_PLANS_TEST_PGBOUNCER="postgresql+psycopg://postgres@127.0.0.1:$BOUNCER_PORT/postgres"
else
  echo "PgBouncer is not installed and this is not root: the PgBouncer tests will skip" >&2
fi
"$@"
