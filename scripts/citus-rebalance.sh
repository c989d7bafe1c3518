#!/usr/bin/env bash
# Frontdesk on a throwaway Citus cluster, under load (docs/scale-out-ops.md):
#   1. a coordinator and two workers on loopback, `frontdesk serve --demo`
#      on the coordinator, and six more accounts, spread over the workers;
#   2. `frontdesk bench load` for DURATION while a third worker is added and
#      the shards rebalanced onto it: the load must see 0 errors and 0 5xx,
#      shards must have moved, and the database must hold exactly the new
#      clients the load's successful batches carried;
#   3. one worker stopped abruptly: an account on it gets the API's error
#      envelope, an account on another worker is served, and once the worker
#      is back both are served and nothing was half written.
# With --compare, the same load also runs on the 3-node cluster before the
# rebalance and against one plain PostgreSQL (a schema of its own in
# 127.0.0.1:5432/test, dropped afterwards).
#
# usage: bash scripts/citus-rebalance.sh [--compare]
#   env PORT (coordinator port, default 9800; workers PORT+1..PORT+3, serve PORT+10),
#       DURATION (default 60s; longer than the rebalance), CONCURRENCY (default 8),
#       SHARDS (per table, default 8)
# Loopback only. Needs PostgreSQL 15 and the Citus tools of ../shared/citus.
set -euo pipefail
cd "$(dirname "$0")/.."
compare=false
[ "${1:-}" = "--compare" ] && compare=true
port=${PORT:-9800}
duration=${DURATION:-60s}
concurrency=${CONCURRENCY:-8}
addr=127.0.0.1:$((port + 10))
tools=""
for d in ../shared/citus /work/shared/citus; do [ -f "$d/cluster.sh" ] && { tools=$(cd "$d" && pwd); break; }; done
[ -n "$tools" ] || { echo "FAIL: ../shared/citus (build.sh, cluster.sh) not found" >&2; exit 1; }
bin=/usr/lib/postgresql/15/bin
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }

work=$(mktemp -d "${TMPDIR:-/tmp}/citus-rebalance.XXXXXX")
chmod 755 "$work" # the cluster runs as the postgres user
cluster=$work/cluster
serve_pid=""
plain_schema=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null || true
  bash "$tools/cluster.sh" stop "$cluster" >/dev/null 2>&1 || true
  [ -n "$plain_schema" ] && psql -h 127.0.0.1 -U postgres -d test -qAtc "DROP SCHEMA IF EXISTS $plain_schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
say() { echo "== $*"; }

say "building frontdesk and Citus"
bash "$tools/build.sh" >/dev/null
go build -o "$work/frontdesk" ./cmd/frontdesk
fd=$work/frontdesk

say "cluster: coordinator :$port, workers :$((port + 1)) :$((port + 2))"
# 8 shards per table (Citus's default is 32): on one small machine the
# rebalance then moves its shard groups well within the load's run.
dsn="$(bash "$tools/cluster.sh" start "$cluster" "$port")&options=-c%20citus.shard_count%3D${SHARDS:-8}"
# Shards move with logical replication while the load writes.
for p in $port $((port + 1)) $((port + 2)); do
  psql -h 127.0.0.1 -p "$p" -U postgres -qAtc "ALTER SYSTEM SET wal_level = logical" >/dev/null
  as_pg "$bin/pg_ctl -D '$cluster/$p' -l '$cluster/$p.log' -w restart" >/dev/null
done
q() { psql "$dsn" -qAtc "$1"; }

start_serve() { # start_serve DSN: serve --demo on addr, waits until ready
  "$fd" serve --demo --db "$1" --addr "$addr" --poll 50ms >"$work/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 300); do curl -sf -o /dev/null "http://$addr/readyz" && return 0; sleep 0.1; done
  cat "$work/serve.log" >&2
  fail "serve did not become ready"
}
stop_serve() { kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=""; }

start_serve "$dsn"
q "UPDATE accounts SET rate_per_second = 0"   # the load measures the server, not its rate limit

say "six more accounts"
for i in 1 2 3 4 5 6; do
  cat >"$work/t$i.yaml" <<YAML
account: {slug: t$i, name: Tenant $i, timezone: Europe/Madrid, default_region: ES}
api_keys: [{key: main, value: pk_t${i}_rebalance_check}]
event_types: [{key: visit, name: Visit, active: true}]
professionals: [{key: p, name: Dr. $i, working_hours: {mon: ["09:00-17:00"]}}]
services: [{key: s, name: Service $i, default_duration_minutes: 30, professionals: [p], event_types: [visit]}]
YAML
  "$fd" workspace apply -f "$work/t$i.yaml" --db "$dsn" >/dev/null
done
q "UPDATE accounts SET rate_per_second = 0"
node_of() { # node_of SLUG: the port of the worker holding the account's clients shard
  q "SELECT s.nodeport FROM citus_shards s, accounts a WHERE a.slug = '$1' AND s.table_name = 'clients'::regclass
     AND s.shardid = get_shard_id_for_distribution_column('clients', a.id)"
}
shards_per_node() { q "SELECT string_agg(nodeport || ': ' || n, ', ' ORDER BY nodeport) FROM (SELECT nodeport, COUNT(*) n FROM citus_shards GROUP BY nodeport) x"; }
echo "accounts by worker: $(for s in demo t1 t2 t3 t4 t5 t6; do printf '%s@%s ' "$s" "$(node_of $s)"; done)"
echo "shards by node before: $(shards_per_node)"
clients_before=$(q "SELECT COUNT(*) FROM clients c JOIN accounts a ON a.id = c.account_id WHERE a.slug = 'demo' AND c.first_name IN ('Carga', 'Espera')")

if $compare; then
  say "load for $duration on the 3-node cluster as it is (for the comparison with one PostgreSQL)"
  "$fd" bench load --addr "$addr" --duration "$duration" --concurrency "$concurrency" --compare 0 --db "$dsn" \
    --pid "$serve_pid" --out "$work/load-citus-steady.md" >"$work/load-citus-steady.log" 2>&1 ||
    { cat "$work/load-citus-steady.log" >&2; fail "bench load on the cluster failed"; }
  steady=$(grep -E '\] mixed run: ' "$work/load-citus-steady.log" | tail -1)
  echo "$steady"
  clients_before=$(q "SELECT COUNT(*) FROM clients c JOIN accounts a ON a.id = c.account_id WHERE a.slug = 'demo' AND c.first_name IN ('Carga', 'Espera')")
fi

say "load for $duration; a third worker joins and the shards are rebalanced meanwhile"
"$fd" bench load --addr "$addr" --duration "$duration" --concurrency "$concurrency" --compare 0 --db "$dsn" \
  --pid "$serve_pid" --out "$work/load-citus.md" >"$work/load-citus.log" 2>&1 &
load_pid=$!
sleep 8
bash "$tools/cluster.sh" add-worker "$cluster" $((port + 3)) >/dev/null
psql -h 127.0.0.1 -p $((port + 3)) -U postgres -qAtc "ALTER SYSTEM SET wal_level = logical" >/dev/null
as_pg "$bin/pg_ctl -D '$cluster/$((port + 3))' -l '$cluster/$((port + 3)).log' -w restart" >/dev/null
rebalance_start=$(date +%s.%N)
q "SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')" >/dev/null
q "SELECT citus_rebalance_wait()" >/dev/null
rebalance_end=$(date +%s.%N)
kill -0 "$load_pid" 2>/dev/null || fail "the rebalance outlasted the load: run it with a longer DURATION"
state=$(q "SELECT state FROM citus_rebalance_status() ORDER BY job_id DESC LIMIT 1")
wait "$load_pid" || { cat "$work/load-citus.log" >&2; fail "bench load failed"; }
cat "$work/load-citus.log"
[ "$state" = "finished" ] || fail "the rebalance ended $state"
moved=$(q "SELECT COUNT(*) FROM citus_shards WHERE nodeport = $((port + 3))")
echo "shards by node after: $(shards_per_node); rebalance took $(python3 -c "print(round($rebalance_end - $rebalance_start, 1))") s"
[ "$moved" -gt 0 ] || fail "no shard moved to the new worker"
line=$(grep -E '\] mixed run: ' "$work/load-citus.log" | tail -1)
errors=$(sed -E 's/.* ([0-9]+) errors.*/\1/' <<<"$line")
five=$(sed -E 's/.* ([0-9]+) 5xx.*/\1/' <<<"$line")
new=$(sed -E 's/.* ([0-9]+) new clients written.*/\1/' <<<"$line")
clients_after=$(q "SELECT COUNT(*) FROM clients c JOIN accounts a ON a.id = c.account_id WHERE a.slug = 'demo' AND c.first_name IN ('Carga', 'Espera')")
echo "errors $errors, 5xx $five; new clients: the load wrote $new, the database gained $((clients_after - clients_before))"
[ "$errors" = 0 ] && [ "$five" = 0 ] || fail "the load saw errors during the rebalance"
[ "$((clients_after - clients_before))" = "$new" ] || fail "rows lost or added: the load wrote $new clients, the database gained $((clients_after - clients_before))"

say "a worker stops abruptly"
down=$(node_of demo)
[ "$down" = "$port" ] && fail "the demo account's shards are on the coordinator"
up_slug=""
for s in t1 t2 t3 t4 t5 t6; do [ "$(node_of $s)" != "$down" ] && { up_slug=$s; break; }; done
down_slug=demo
[ -n "$up_slug" ] || fail "every account is on worker $down"
as_pg "$bin/pg_ctl -D '$cluster/$down' -m immediate stop" >/dev/null
services() { # services KEY: status and body of GET /calendar/services
  curl -s -m 20 -o "$work/body" -w '%{http_code}' -H "Authorization: Bearer $1" "http://$addr/api/v2/public/calendar/services"
}
key_of() { [ "$1" = demo ] && echo pk_demo_frontdesk || echo "pk_${1}_rebalance_check"; }
code_down=$(services "$(key_of $down_slug)"); body_down=$(cat "$work/body")
code_up=$(services "$(key_of $up_slug)")
echo "worker :$down down: $down_slug (on it) answered $code_down $body_down; $up_slug (elsewhere) answered $code_up"
# A write for the account on the stopped worker: refused whole.
up_id=$(q "SELECT id FROM accounts WHERE slug = '$up_slug'")
down_id=$(q "SELECT id FROM accounts WHERE slug = '$down_slug'")
# (a literal account id: the statement then reaches that account's worker only)
before_down=$(q "SELECT COUNT(*) FROM clients WHERE account_id = $up_id")
batch='{"clients": [{"phone_number": "+34699000001", "first_name": "Caída"}, {"phone_number": "+34699000002", "first_name": "Caída"}]}'
code_write=$(curl -s -m 20 -o "$work/wbody" -w '%{http_code}' -H "Authorization: Bearer pk_demo_frontdesk" -H 'Content-Type: application/json' \
  -d "$batch" "http://$addr/api/v2/public/leadflow/ingest/6f1c9a52-3b7e-4d2a-9c41-2f8e5d7a1b01/batch")
echo "an ingest batch for $down_slug answered $code_write $(cat "$work/wbody")"
[ "$code_up" = 200 ] || fail "an account on a running worker was not served ($code_up)"
[[ $code_down =~ ^5 ]] && grep -q '"error_code"' <<<"$body_down" || fail "the account on the stopped worker did not get the error envelope"
[[ $code_write =~ ^5 ]] || fail "a write for the account on the stopped worker answered $code_write"
as_pg "$bin/pg_ctl -D '$cluster/$down' -l '$cluster/$down.log' -w start" >/dev/null
for _ in $(seq 1 100); do [ "$(services pk_demo_frontdesk)" = 200 ] && break; sleep 0.2; done
code_back=$(services "$(key_of $down_slug)")
half=$(q "SELECT COUNT(*) FROM clients WHERE account_id = $down_id AND first_name = 'Caída'")
echo "worker back: $down_slug answered $code_back; clients of the refused batch stored: $half (want 0)"
[ "$code_back" = 200 ] || fail "the account did not recover"
[ "$half" = 0 ] || fail "the refused batch was half written"
[ "$(q "SELECT COUNT(*) FROM clients WHERE account_id = $up_id")" = "$before_down" ] || fail "another account's rows changed"

if $compare; then
  say "the same load on one PostgreSQL"
  stop_serve
  plain_schema=fd_rebalance_$$
  psql -h 127.0.0.1 -U postgres -d test -qAtc "CREATE SCHEMA $plain_schema"
  plain="postgres://postgres@127.0.0.1:5432/test?sslmode=disable&search_path=$plain_schema"
  start_serve "$plain"
  psql -h 127.0.0.1 -U postgres -d test -qAtc "SET search_path = $plain_schema; UPDATE accounts SET rate_per_second = 0"
  "$fd" bench load --addr "$addr" --duration "$duration" --concurrency "$concurrency" --compare 0 --db "$plain" \
    --pid "$serve_pid" --out "$work/load-pg.md" >"$work/load-pg.log" 2>&1 || { cat "$work/load-pg.log" >&2; fail "bench load on PostgreSQL failed"; }
  echo "one PostgreSQL:               $(grep -E '\] mixed run: ' "$work/load-pg.log" | tail -1)"
  echo "Citus, 3 nodes:               $steady"
  echo "Citus, 3 nodes + 1 joining:   $line"
fi
mkdir -p artifacts
cp "$work"/load-*.md artifacts/ 2>/dev/null || true
echo "PASS: rebalance under load lost nothing; a stopped worker failed only its accounts' requests, cleanly (reports in artifacts/)"
