# Shared by the measuring scripts (source it; it runs nothing by itself):
# a work directory, scratch PostgreSQL schemas, one `frontdesk serve` at a
# time, and the cleanup of all three when the script exits, however it
# exits. Loopback only.
#
#   work             a temporary directory, removed at exit
#   pg               env PG, default the local test database
#   scratch NAME     (re)create schema NAME; it is dropped at exit
#   serve BIN DSN PORT LOG [ARGS...]
#                    start `BIN serve --demo` and wait for /healthz;
#                    serve_pid is its pid
#   stop_serve       stop it
#   daylight FILE    write the workspace file that lifts the demo's request
#                    limit and its quiet hours (bench.daylightWorkspace in Go
#                    is the same file, for `frontdesk bench compare`)
#   sql SQL...       run statements quietly against pg
export PGOPTIONS='-c client_min_messages=warning'
pg=${PG:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
work=$(mktemp -d)
serve_pid=
_schemas=()

sql() { psql "$pg" -qc "$*" >/dev/null; }

_cleanup() {
  if [ -n "$serve_pid" ]; then
    kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  fi
  local s
  for s in "${_schemas[@]}"; do
    psql "$pg" -qc "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap _cleanup EXIT

scratch() {
  local s known=
  for s in "${_schemas[@]}"; do [ "$s" = "$1" ] && known=1; done
  [ -n "$known" ] || _schemas+=("$1")
  sql "DROP SCHEMA IF EXISTS $1 CASCADE; CREATE SCHEMA $1"
}

serve() {
  local bin=$1 dsn=$2 port=$3 log=$4
  shift 4
  FRONTDESK_DB=$dsn "$bin" serve --demo --addr "127.0.0.1:$port" "$@" >"$log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return
    sleep 0.1
  done
  echo "serve did not start:" >&2
  cat "$log" >&2
  exit 1
}

stop_serve() {
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=
}

daylight() {
  printf 'account: {slug: demo, limits: {requests_per_second: 0}}\nmessaging: {quiet_hours: ""}\n' >"$1"
}
