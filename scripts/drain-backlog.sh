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
. "$(dirname "$0")/lib.sh"
port=${PORT:-18556}
schema=drain_backlog_$$
daylight "$work/daylight.yaml"
poll_psql=$(ls /usr/lib/postgresql/*/bin/psql 2>/dev/null | tail -n 1 || true)
poll_psql=${poll_psql:-psql}
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
for bin in "$@"; do
  scratch "$schema"
  dsn="$pg&search_path=$schema"
  serve "$bin" "$dsn" "$port" "$work/serve.log" --worker=false
  FRONTDESK_DB=$dsn "$bin" workspace apply -f "$work/daylight.yaml" >/dev/null
  "$bin" bench load --addr "127.0.0.1:$port" --duration "${LOAD:-10s}" --compare 0 --db "$dsn" >/dev/null 2>&1
  stop_serve
  due_rows="SELECT 1 FROM $schema.jobs WHERE status IN ('pending', 'running') AND run_at <= (EXTRACT(EPOCH FROM now()) * 1000000)::bigint"
  n=$(psql "$pg" -Atc "SELECT COUNT(*) FROM ($due_rows) AS d")
  psql "$pg" -qc "CHECKPOINT" >/dev/null
  b0=$(busy); t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  serve "$bin" "$dsn" "$port" "$work/serve.log" ${SERVE_ARGS:-}
  # EXISTS through jobs_due: a COUNT here scanned the whole table four
  # times a second, a CPU cost the drain would be charged for.
  # psql itself, not Debian's Perl wrapper, which cost a tenth of the
  # machine's CPU at four polls a second.
  until [ "$("$poll_psql" "$pg" -Atc "SELECT EXISTS ($due_rows)")" = f ]; do sleep 0.25; done
  t1=$(date +%s.%N); b1=$(busy)
  own=$(awk '{print $14 + $15}' "/proc/$serve_pid/stat")
  stop_serve
  awk -v bin="$bin" -v n="$n" -v t0="$t0" -v t1="$t1" -v b0="$b0" -v b1="$b1" -v own="$own" -v hz="$(getconf CLK_TCK)" 'BEGIN {
    s = t1 - t0
    printf "%s: %d jobs in %.2f s = %.0f jobs/s; machine CPU %.2f s (%.0f µs a job), server %.2f s (%.0f µs a job)\n",
      bin, n, s, n / s, (b1 - b0) / hz, (b1 - b0) / hz / n * 1e6, own / hz, own / hz / n * 1e6 }'
  sql "DROP SCHEMA IF EXISTS $schema CASCADE"
done
