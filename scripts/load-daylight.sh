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
cd "$(dirname "$0")/.."
. scripts/lib.sh
duration=${DURATION:-45s}
port=${PORT:-18555}
schema=load_daylight_$$

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  go build -o "$work/frontdesk" ./cmd/frontdesk
  bins=("$work/frontdesk")
fi
daylight "$work/daylight.yaml"
for bin in "${bins[@]}"; do
  scratch "$schema"
  dsn="$pg&search_path=$schema"
  # shellcheck disable=SC2086
  serve "$bin" "$dsn" "$port" "$work/serve.log" ${SERVE_ARGS:-}
  FRONTDESK_DB=$dsn "$bin" workspace apply -f "$work/daylight.yaml" >/dev/null
  echo "## $bin"
  "$bin" bench load --addr "127.0.0.1:$port" --duration "$duration" --compare 0 --pid "$serve_pid" --db "$dsn" 2>/dev/null
  stop_serve
done
