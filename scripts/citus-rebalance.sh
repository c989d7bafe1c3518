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
# With --compare, the same load (same duration, same clients) also runs on
# the 3-node cluster before the rebalance (coordinator + 2 workers) and
# against one plain PostgreSQL (a schema of its own in 127.0.0.1:5432/test,
# dropped afterwards); the summary shows all three.
# It ends with a summary (req/s, p50/p99, errors, shards moved, rebalance
# duration); the load reports and serve's logs are copied to artifacts/.
# Exits non-zero on any failed check; the cluster, serve and the temp dir
# are removed on exit, whatever happens.
#
# usage: bash scripts/citus-rebalance.sh [--compare]
#   env PORT (coordinator port, default 9800; workers PORT+1..PORT+3),
#       SERVE_PORT (frontdesk serve's HTTP port, default PORT+10),
#       DURATION (default 60s; longer than the rebalance), CONCURRENCY (default 8),
#       SHARDS (per table, default 8)
# Loopback only. Needs PostgreSQL 15, psql, curl, python3, Go and the Citus
# tools of ../shared/citus (build.sh, cluster.sh). Takes about 2.5 minutes
# (4.5 with --compare).
set -euo pipefail
cd "$(dirname "$0")/.."
compare=false
case "${1:-}" in
  --compare) compare=true ;;
  "") ;;
  *) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
port=${PORT:-9800}
duration=${DURATION:-60s}
concurrency=${CONCURRENCY:-8}
addr=127.0.0.1:${SERVE_PORT:-$((port + 10))}
tools=""
for d in ../shared/citus /work/shared/citus; do [ -f "$d/cluster.sh" ] && { tools=$(cd "$d" && pwd); break; }; done
[ -n "$tools" ] || { echo "FAIL: ../shared/citus (build.sh, cluster.sh) not found" >&2; exit 1; }
bin=/usr/lib/postgresql/15/bin
as_pg() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi; }

work=$(mktemp -d "${TMPDIR:-/tmp}/citus-rebalance.XXXXXX")
chmod 755 "$work" # the cluster runs as the postgres user
cluster=$work/cluster
serve_pid=""
load_pid=""
plain_schema=""
serve_runs=0
cleanup() {
  local rc=$?
  if [ "$rc" != 0 ]; then # keep what explains the failure
    local keep
    keep=artifacts/citus-rebalance-failed-$(date -u +%Y%m%dT%H%M%S)
    mkdir -p "$keep"
    cp "$cluster"/*.log "$work"/*.log "$work"/*.md "$keep"/ 2>/dev/null || true
    echo "logs of the failed run in $keep/" >&2
  fi
  [ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
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
  serve_runs=$((serve_runs + 1))
  serve_log=$work/serve-$serve_runs.log
  "$fd" serve --demo --db "$1" --addr "$addr" --poll 50ms >"$serve_log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 1 300); do curl -sf -o /dev/null "http://$addr/readyz" && return 0; sleep 0.1; done
  cat "$serve_log" >&2
  fail "serve did not become ready"
}
# errors_in SERVE_LOG: how many ERROR lines serve logged (its log is JSON)
errors_in() { grep -c '"level":"ERROR"' "$1" || true; }
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
# Distributed shards only: reference tables have a copy on every node.
shards_per_node() {
  q "SELECT string_agg(nodeport || ': ' || n, ', ' ORDER BY nodeport)
     FROM (SELECT nodeport, COUNT(*) n FROM citus_shards WHERE citus_table_type = 'distributed' GROUP BY nodeport) x"
}
shards_on() { q "SELECT COUNT(*) FROM citus_shards WHERE citus_table_type = 'distributed' AND nodeport = $1"; }
echo "accounts by worker: $(for s in demo t1 t2 t3 t4 t5 t6; do printf '%s@%s ' "$s" "$(node_of $s)"; done)"
echo "distributed shards by node before: $(shards_per_node)"
demo_clients() { q "SELECT COUNT(*) FROM clients c JOIN accounts a ON a.id = c.account_id WHERE a.slug = 'demo' AND c.first_name IN ('Carga', 'Espera')"; }
# stats REPORT: "req/s p50 p99 errors 5xx" of the "all" row of a load report
stats() { awk -F'|' '$2 ~ /^ all $/ {gsub(/ /, ""); print $4, $5, $6, $7, $8}' "$1"; }

if $compare; then
  say "the same load on the cluster, 3 nodes as they are (coordinator + 2 workers)"
  "$fd" bench load --addr "$addr" --duration "$duration" --concurrency "$concurrency" --compare 0 --db "$dsn" \
    --pid "$serve_pid" --out "$work/load-citus-steady.md" >"$work/load-citus-steady.log" 2>&1 ||
    { cat "$work/load-citus-steady.log" >&2; fail "bench load on the steady cluster failed"; }
  read -r s_rps s_p50 s_p99 s_errors s_five <<<"$(stats "$work/load-citus-steady.md")"
  [ "$s_errors" = 0 ] && [ "$s_five" = 0 ] || fail "the load on the steady cluster saw errors"
fi
clients_before=$(demo_clients)

say "load for $duration; a third worker joins and the shards are rebalanced meanwhile"
"$fd" bench load --addr "$addr" --duration "$duration" --concurrency "$concurrency" --compare 0 --db "$dsn" \
  --pid "$serve_pid" --out "$work/load-citus.md" >"$work/load-citus.log" 2>&1 &
load_pid=$!
sleep 8
bash "$tools/cluster.sh" add-worker "$cluster" $((port + 3)) >/dev/null
psql -h 127.0.0.1 -p $((port + 3)) -U postgres -qAtc "ALTER SYSTEM SET wal_level = logical" >/dev/null
as_pg "$bin/pg_ctl -D '$cluster/$((port + 3))' -l '$cluster/$((port + 3)).log' -w restart" >/dev/null
rebalance_start=$(date +%s.%N)
q "SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical')" >/dev/null 2>"$work/rebalance.notice"
moves=$(sed -nE 's/.*Scheduled ([0-9]+) moves.*/\1/p' "$work/rebalance.notice")
state=""
for _ in $(seq 1 600); do # poll the background job (at most 10 minutes)
  state=$(q "SELECT state FROM citus_rebalance_status() ORDER BY job_id DESC LIMIT 1")
  case $state in finished | failed | cancelled) break ;; esac
  sleep 1
done
rebalance_end=$(date +%s.%N)
rebalance_s=$(python3 -c "print(round($rebalance_end - $rebalance_start, 1))")
kill -0 "$load_pid" 2>/dev/null || fail "the rebalance outlasted the load: run it with a longer DURATION"
wait "$load_pid" || { cat "$work/load-citus.log" >&2; load_pid=""; fail "bench load failed"; }
load_pid=""
cat "$work/load-citus.log"
[ "$state" = "finished" ] || fail "the rebalance ended ${state:-unfinished}"
moved=$(shards_on $((port + 3)))
echo "distributed shards by node after: $(shards_per_node); $moved on the new worker ($moves shard groups); the rebalance took $rebalance_s s"
echo "accounts by worker after: $(for s in demo t1 t2 t3 t4 t5 t6; do printf '%s@%s ' "$s" "$(node_of $s)"; done)"
[ "$moved" -gt 0 ] || fail "no shard moved to the new worker"
read -r rps p50 p99 errors five <<<"$(stats "$work/load-citus.md")"
line=$(grep -E '\] mixed run: ' "$work/load-citus.log" | tail -1)
new=$(sed -E 's/.* ([0-9]+) new clients written.*/\1/' <<<"$line")
clients_after=$(demo_clients)
gained=$((clients_after - clients_before))
echo "errors $errors, 5xx $five; new clients: the load wrote $new, the database gained $gained"
[ "$errors" = 0 ] && [ "$five" = 0 ] || fail "the load saw errors during the rebalance"
[ "$gained" = "$new" ] || fail "rows lost or added: the load wrote $new clients, the database gained $gained"
load_errors=$(errors_in "$serve_log")
[ "$load_errors" = 0 ] || { grep '"level":"ERROR"' "$serve_log" | head -20 >&2; fail "serve logged $load_errors errors during the load"; }

say "a worker stops abruptly"
down=$(node_of demo)
[ "$down" = "$port" ] && fail "the demo account's shards are on the coordinator"
up_slug=""
for s in t1 t2 t3 t4 t5 t6; do [ "$(node_of $s)" != "$down" ] && { up_slug=$s; break; }; done
down_slug=demo
[ -n "$up_slug" ] || fail "every account is on worker $down"
as_pg "$bin/pg_ctl -D '$cluster/$down' -m immediate stop" >/dev/null
services() { # services KEY: status and body of GET /calendar/services (its time in $work/time)
  curl -s -m 20 -o "$work/body" -w '%{http_code}' -H "Authorization: Bearer $1" \
    "http://$addr/api/v2/public/calendar/services" 2>"$work/time" || true
}
key_of() { [ "$1" = demo ] && echo pk_demo_frontdesk || echo "pk_${1}_rebalance_check"; }
t0=$(date +%s.%N)
code_down=$(services "$(key_of $down_slug)"); body_down=$(cat "$work/body")
down_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 2))")
code_up=$(services "$(key_of $up_slug)")
echo "worker :$down down: $down_slug (on it) answered $code_down in $down_s s: $body_down"
echo "  $up_slug (on :$(node_of $up_slug)) answered $code_up"
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

serve_errors=$(errors_in "$work/serve-1.log")
echo "serve logged $((serve_errors - load_errors)) errors while the worker was down or restarting, by message:"
grep '"level":"ERROR"' "$work/serve-1.log" | tail -n +$((load_errors + 1)) |
  sed -E 's/.*"msg":"([^"]*)".*"err":"([^":]*).*/  \1: \2/' | sort | uniq -c || true

summary=$work/summary
{
  printf '%-34s %8s %8s %8s %7s %4s\n' run req/s "p50 ms" "p99 ms" errors 5xx
  printf '%-34s %8s %8s %8s %7s %4s\n' "Citus, adding a worker + rebalance" "$rps" "$p50" "$p99" "$errors" "$five"
  if $compare; then
    printf '%-34s %8s %8s %8s %7s %4s\n' "Citus, 3 nodes (before)" "$s_rps" "$s_p50" "$s_p99" "$s_errors" "$s_five"
  fi
} >"$summary"

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
  read -r g_rps g_p50 g_p99 g_errors g_five <<<"$(stats "$work/load-pg.md")"
  printf '%-34s %8s %8s %8s %7s %4s\n' "one PostgreSQL (:5432)" "$g_rps" "$g_p50" "$g_p99" "$g_errors" "$g_five" >>"$summary"
  [ "$g_errors" = 0 ] && [ "$g_five" = 0 ] || fail "the load on PostgreSQL saw errors"
fi
mkdir -p artifacts
cp "$work"/load-*.md "$work"/serve-*.log artifacts/ 2>/dev/null || true

say "summary ($concurrency clients, $duration each)"
cat "$summary"
echo "rebalance: $moves shard groups, $moved distributed shards moved to the new worker in $rebalance_s s; new clients: the load wrote $new, the database gained $gained"
echo "worker stopped: its account answered $code_down in $down_s s (error envelope), a write $code_write, nothing stored; another account $code_up; after restart $code_back"
echo "PASS (load reports and serve logs in artifacts/)"
