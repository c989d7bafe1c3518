#!/usr/bin/env bash
# 500-row ingest over HTTP next to the raw floor, in one run
# (docs/performance.md, "Measuring ingest against the floor"):
#   1. the raw floor of ../shared/bench/limits (dbbench, levels 0, methods
#      stmt_per_row and unnest) on SQLite and PostgreSQL;
#   2. for each binary (this checkout's, and BEFORE if set) and each engine:
#      `serve --demo` on a fresh database (a temporary SQLite file; a schema
#      of its own in PG, dropped afterwards), then `frontdesk bench ingest`
#      from a second process over loopback HTTP;
#   3. the floor again, so a drift of the machine shows;
# and prints one table: median ms per batch and the ratio to the floor
# (new and mixed batches against insert_new, update against upsert_existing).
#
# usage: bash scripts/ingest-floor.sh
#   env PG (default postgres://postgres@127.0.0.1:5432/test?sslmode=disable),
#       BATCHES (timed batches per kind, default 15), BEFORE (another
#       frontdesk binary to measure in the same run), PORT (default 18480),
#       LIMITS (default ../shared/bench/limits)
# Loopback only. Needs Go, psql and the limits module. Takes about 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
batches=${BATCHES:-15}
port=${PORT:-18480}
limits=${LIMITS:-../shared/bench/limits}
[ -d "$limits" ] || limits=/work/shared/bench/limits

go build -o "$work/frontdesk" ./cmd/frontdesk
(cd "$limits" && go build -o "$work/dbbench" ./cmd/dbbench)

# dbbench writes its own two tables; a schema of its own keeps them apart.
scratch "dbbench_floor_$$"
floor_dsn="$pg&search_path=dbbench_floor_$$"
floor() {
  "$work/dbbench" -engines sqlite,pg -levels 0 -methods stmt_per_row,unnest -pgdsn "$floor_dsn" -out "" \
    -sqlite "$work/floor.db" 2>&1 | awk '$1 ~ /^(sqlite|pg)$/ && $2 == 0 {print $1, $4, $6}'
}
echo "raw floor (before)..." >&2
floor > "$work/floor1"

measure() { # name binary engine
  local name=$1 bin=$2 engine=$3 dsn
  if [ "$engine" = sqlite ]; then
    dsn="$work/$name.db"
  else
    scratch "ingest_floor_$$"
    dsn="$pg&search_path=ingest_floor_$$"
  fi
  serve "$bin" "$dsn" "$port" "$work/serve-$name-$engine.log" --worker=false
  echo "$name on $engine..." >&2
  "$work/frontdesk" bench ingest --addr "127.0.0.1:$port" --batches "$batches" 2>/dev/null |
    awk -v n="$name" -v e="$engine" -F'|' '$2 ~ /new|update|mixed/ {gsub(/ |ms/, "", $2); gsub(/ |ms/, "", $3); print n, e, $2, $3}' >> "$work/ours"
  stop_serve
}
for engine in sqlite pg; do
  measure after "$work/frontdesk" "$engine"
  [ -n "${BEFORE:-}" ] && measure before "$BEFORE" "$engine"
done
echo "raw floor (after)..." >&2
floor > "$work/floor2"

python3 - "$work/floor1" "$work/floor2" "$work/ours" <<'EOF'
import sys, statistics
floor = {}
for f in sys.argv[1:3]:
    for line in open(f):
        eng, op, ms = line.split()
        floor.setdefault((eng, op), []).append(float(ms))
print("| engine | floor insert_new | floor upsert_existing | binary | new | update | mixed | new ÷ floor | update ÷ floor | mixed ÷ floor |")
print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
ours = {}
for line in open(sys.argv[3]):
    name, eng, kind, ms = line.split()
    ours.setdefault((eng, name), {})[kind] = float(ms)
for (eng, name), k in sorted(ours.items()):
    new = statistics.mean(floor[(eng, "insert_new")]); up = statistics.mean(floor[(eng, "upsert_existing")])
    fl = "/".join(f"{v:.1f}" for v in floor[(eng, "insert_new")]); fu = "/".join(f"{v:.1f}" for v in floor[(eng, "upsert_existing")])
    print(f"| {eng} | {fl} | {fu} | {name} | {k['new']:.1f} | {k['update']:.1f} | {k['mixed']:.1f} | "
          f"{k['new']/new:.2f}x | {k['update']/up:.2f}x | {k['mixed']/new:.2f}x |")
EOF
