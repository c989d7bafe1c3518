#!/usr/bin/env bash
# One measured import: a fresh database (PostgreSQL: drops and re-creates
# fd_import_bench, your own database; never another), `SERVER serve --demo`,
# then `CLIENT import pipeline` of CSV into the demo API node.
#   usage: importrun.sh sqlite|pg SERVER_BIN CLIENT_BIN CSV [client flags]
#   env SERVE_ARGS (e.g. --worker=false)
# Prints: rows/s (the summary's), wall seconds, client user and system CPU
# seconds. Interleave the binaries: the machine is shared.
set -euo pipefail
engine=$1 srv=$2 cli=$3 csv=$4; shift 4
port=$((20000 + RANDOM % 20000))
work=$(mktemp -d ${TMPDIR:-/tmp}/fdimport.XXXXXX)
if [[ $engine == pg ]]; then
  dropdb -h 127.0.0.1 -U postgres --if-exists fd_import_bench
  createdb -h 127.0.0.1 -U postgres fd_import_bench
  dsn='postgres://postgres@127.0.0.1:5432/fd_import_bench?sslmode=disable'
else
  dsn=$work/fd.db
fi
"$srv" serve --demo --db "$dsn" --addr 127.0.0.1:$port ${SERVE_ARGS:-} > "$work/srv.log" 2>&1 &
spid=$!
trap 'kill $spid 2>/dev/null; wait $spid 2>/dev/null; rm -rf "$work"' EXIT
for i in $(seq 1 200); do curl -sf -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.05; done
start=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$work/time" "$cli" import pipeline --base-url http://127.0.0.1:$port --key pk_demo_frontdesk \
  --node 6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01 -f "$csv" --quiet --json --out "$work/res.csv" "$@" > "$work/sum.json"
end=$(date +%s.%N)
rps=$(python3 -c "import json;d=json.load(open('$work/sum.json'));assert d['complete'] and d['statuses'].get('created')==d['rows'], d;print(round(d['rows_per_second']))")
echo "$rps $(python3 -c "print(round($end-$start,3))") $(cat $work/time)"
