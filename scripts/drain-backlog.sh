#!/usr/bin/env bash
# How fast the job worker alone drains a backlog, and what CPU it costs.
# For each binary: a fresh schema, `serve --demo --worker=false` with the
# demo's quiet hours off, a `bench load` of LOAD (default 10s) that queues
# automations and their messages (about 65,000 jobs), then `serve --demo`
# with its worker and nothing else until no job is due. Prints the jobs
# drained, jobs/s, the machine's busy CPU time per job (user, system, irq;
# the server and PostgreSQL, and the psql polls) and the server's own.
#
# usage: bash scripts/drain-backlog.sh BINARY...   (alternate binaries and
#   repeat them: the machine is noisy). env PG (default
#   postgres://postgres@127.0.0.1:5432/test?sslmode=disable), PORT (default
#   18556), SERVE_ARGS (added to the draining serve), LOAD.
# Loopback only. Needs psql and /proc. About 40 s per binary.
set -euo pipefail
export PGOPTIONS='-c client_min_messages=warning'
pg=${PG:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
port=${PORT:-18556}
work=$(mktemp -d)
schema=drain_backlog_$$
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  psql "$pg" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
printf 'account: {slug: demo, limits: {requests_per_second: 0}}\nmessaging: {quiet_hours: ""}\n' > "$work/daylight.yaml"
poll_psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | tail -n 1 || true)
poll_psql=${poll_psql:-psql}
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
serve() { # dsn, args...
  local dsn=$1; shift
  FRONTDESK_DB=$dsn "$bin" serve --demo --addr "127.0.0.1:$port" "$@" >"$work/serve.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
for bin in "$@"; do
  psql "$pg" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null
  dsn="$pg&search_path=$schema"
  serve "$dsn" --worker=false
  FRONTDESK_DB=$dsn "$bin" workspace apply -f "$work/daylight.yaml" >/dev/null
  "$bin" bench load --addr "127.0.0.1:$port" --duration "${LOAD:-10s}" --compare 0 --db "$dsn" >/dev/null 2>&1
  stop
  due_rows="SELECT 1 FROM $schema.jobs WHERE status IN ('pending', 'running') AND run_at <= (EXTRACT(EPOCH FROM now()) * 1000000)::bigint"
  n=$(psql "$pg" -Atc "SELECT COUNT(*) FROM ($due_rows) AS d")
  psql "$pg" -qc "CHECKPOINT" >/dev/null
  b0=$(busy); t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  serve "$dsn" ${SERVE_ARGS:-}
  # EXISTS through jobs_due: a COUNT here scanned the whole table four
  # times a second, a CPU cost the drain would be charged for.
  # psql itself, not Debian's Perl wrapper, which cost a tenth of the
  # machine's CPU at four polls a second.
  until [ "$("$poll_psql" "$pg" -Atc "SELECT EXISTS ($due_rows)")" = f ]; do sleep 0.25; done
  t1=$(date +%s.%N); b1=$(busy)
  own=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  stop
  awk -v bin="$bin" -v n="$n" -v t0="$t0" -v t1="$t1" -v b0="$b0" -v b1="$b1" -v own="$own" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    s = t1 - t0
    printf "%s: %d jobs in %.2f s = %.0f jobs/s; machine CPU %.2f s (%.0f µs a job), server %.2f s (%.0f µs a job)\n",
      bin, n, s, n / s, (b1 - b0) / hz, (b1 - b0) / hz / n * 1e6, own / hz, own / hz / n * 1e6 }'
  psql "$pg" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null
done
