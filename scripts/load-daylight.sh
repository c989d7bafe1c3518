#!/usr/bin/env bash
# `frontdesk bench load` against `serve --demo` on PostgreSQL with the
# demo's quiet hours off, so the automation messages the load's ingests
# queue are sent during the run as they would be in daylight (the demo holds
# them 21:00-09:00 Madrid; docs/performance.md, "Sending a round of
# messages"). The account's request limit is lifted, as for every load run.
#
# usage: bash scripts/load-daylight.sh [BINARY...]
#   each binary (default: this checkout's, built) gets a fresh schema and
#   one run; env PG (default postgres://postgres@127.0.0.1:5432/test?sslmode=disable),
#   DURATION (default 45s), PORT (default 18555), SERVE_ARGS (added to serve).
# Loopback only. Needs Go and psql. About a minute per binary.
set -euo pipefail
export PGOPTIONS='-c client_min_messages=warning'
cd "$(dirname "$0")/.."
pg=${PG:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
duration=${DURATION:-45s}
port=${PORT:-18555}
work=$(mktemp -d)
schema=load_daylight_$$
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  psql "$pg" -qc "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  go build -o "$work/frontdesk" ./cmd/frontdesk
  bins=("$work/frontdesk")
fi
printf 'account: {slug: demo, limits: {requests_per_second: 0}}\nmessaging: {quiet_hours: ""}\n' > "$work/daylight.yaml"
for bin in "${bins[@]}"; do
  psql "$pg" -qc "DROP SCHEMA IF EXISTS $schema CASCADE; CREATE SCHEMA $schema" >/dev/null
  dsn="$pg&search_path=$schema"
  # shellcheck disable=SC2086
  FRONTDESK_DB=$dsn "$bin" serve --demo --addr "127.0.0.1:$port" ${SERVE_ARGS:-} >"$work/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  FRONTDESK_DB=$dsn "$bin" workspace apply -f "$work/daylight.yaml" >/dev/null
  echo "## $bin"
  "$bin" bench load --addr "127.0.0.1:$port" --duration "$duration" --compare 0 --pid "$serve_pid" --db "$dsn" 2>/dev/null
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
  serve_pid=
done
