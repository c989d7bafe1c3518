package main

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Two `frontdesk serve` on one PostgreSQL, both running the job worker:
// ingest batches for one input node sent to both at once never overlap
// (while the test holds the node's advisory lock, a batch of each server
// waits for it; no two ever hold it at once; the client ids each batch
// created form disjoint ranges), nobody gets
// BATCH_IN_PROGRESS within the default wait, and the stage's on-arrival
// automations run once: exactly one automation message per placed client,
// each stage-arrival job run exactly once. With a short --batch-wait, a
// batch still waiting gets BATCH_IN_PROGRESS, never before the wait.
func TestTwoInstancesOnePostgres(t *testing.T) {
	dsn := dbtest.DSN(t, db.Postgres)
	applyAcme(t, dsn)
	store, err := db.Open(context.Background(), dsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	h := fnv.New64a()
	h.Write([]byte("ingest/" + acmeNode))
	key := int64(h.Sum64())
	classID, objID := uint32(uint64(key)>>32), uint32(uint64(key))

	t.Run("serialised, jobs once", func(t *testing.T) {
		// The stage's webhook automation goes to a receiver of the test's,
		// which counts the deliveries per card.
		hooks := newHookCounter(t)
		acme, err := os.ReadFile("../../internal/workspace/testdata/acme.yaml")
		if err != nil {
			t.Fatal(err)
		}
		// Messages leave through a channel since serve delivers through the
		// account's channels; without one they would all be suppressed. The
		// log channel sends without a provider to fake.
		file := strings.ReplaceAll(string(acme), "https://example.test/new-lead", hooks.url) +
			"\nchannels: [{key: log, type: log, provider: log}]\nmessaging: {default_channel: log}\n"
		if code, _, stderr := runCmd(t, dsn, file, "workspace", "apply", "-f", "-"); code != 0 {
			t.Fatal(stderr)
		}
		// Short: 6 x 50 rows; the long version sends 6 x 200 per round.
		perBatch := 50
		if *faultTrials > 1 {
			perBatch = 200
		}
		addrs := []string{freeAddr(t), freeAddr(t)}
		for _, a := range addrs {
			startServe(t, dsn, a, "--poll=50ms")
		}
		for round := 0; round < *faultTrials; round++ {
			// Watch the node's advisory lock from a third connection.
			stop := make(chan struct{})
			var held, waiting, maxHolders int
			watched := make(chan struct{})
			go func() {
				defer close(watched)
				for {
					select {
					case <-stop:
						return
					default:
					}
					var granted, blocked int
					store.QueryRow(ctx, `SELECT COUNT(*) FILTER (WHERE granted), COUNT(*) FILTER (WHERE NOT granted) FROM pg_locks
						WHERE locktype = 'advisory' AND classid = ? AND objid = ? AND objsubid = 1`, int64(classID), int64(objID)).Scan(&granted, &blocked)
					maxHolders = max(maxHolders, granted)
					if granted > 0 {
						held++
					}
					if blocked > 0 {
						waiting++
					}
					time.Sleep(2 * time.Millisecond)
				}
			}()
			// The test holds the node's lock first, so that the batches
			// must queue on it whatever the machine's speed: it lets go
			// once a batch of each server waits for it.
			locked, release, unlocked := make(chan error, 1), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(unlocked)
				store.Transact(ctx, func(tx *db.Tx) error {
					_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(?)`, key)
					locked <- err
					<-release
					return nil
				})
			}()
			if err := <-locked; err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			results := make([]*sent, 6)
			for i := range results {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := &sent{kind: "ingest", server: i % 2, phones: phoneSet(400+round, i*perBatch, (i+1)*perBatch)}
					s.start = time.Now()
					var err error
					s.status, s.body, err = post(addrs[s.server], ingestPath, ingestBody(s.phones))
					s.end = time.Now()
					if err != nil {
						t.Errorf("batch %d: %v", i, err)
					}
					results[i] = s
				}()
			}
			queued := 0
			for deadline := time.Now().Add(20 * time.Second); queued < 2 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				store.QueryRow(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = ? AND objid = ? AND objsubid = 1 AND NOT granted`,
					int64(classID), int64(objID)).Scan(&queued)
			}
			close(release)
			<-unlocked
			wg.Wait()
			close(stop)
			<-watched
			if queued < 2 {
				t.Fatalf("round %d: %d batches waited for the node's lock held elsewhere, want one from each server", round, queued)
			}
			if t.Failed() {
				return
			}
			placed := 0
			type span struct{ lo, hi int64 }
			var spans []span
			for i, s := range results {
				if s.status != 200 {
					t.Fatalf("round %d: batch %d on server %d answered %d (the default wait is 30 s): %v", round, i, s.server, s.status, s.body)
				}
				placed += int(s.body["summary"].(map[string]any)["pipeline_added"].(float64))
				sp := span{lo: 1 << 62}
				for _, r := range s.body["results"].([]any) {
					id := int64(r.(map[string]any)["client_id"].(float64))
					sp.lo, sp.hi = min(sp.lo, id), max(sp.hi, id)
				}
				spans = append(spans, sp)
			}
			if placed != 6*perBatch {
				t.Errorf("round %d: %d clients placed, want %d", round, placed, 6*perBatch)
			}
			slices.SortFunc(spans, func(a, b span) int { return int(a.lo - b.lo) })
			for i := 1; i < len(spans); i++ {
				if spans[i].lo <= spans[i-1].hi {
					t.Errorf("round %d: two batches created interleaved client ids %v and %v: they overlapped", round, spans[i-1], spans[i])
				}
			}
			if maxHolders > 1 {
				t.Errorf("round %d: %d holders of the node's lock at once", round, maxHolders)
			}

			// Both workers poll the same jobs table; each job must run once.
			// Wait until every arrival is expanded, every automation message
			// sent and every card's webhook received, then a little longer
			// for a duplicate to show.
			prefix := setPrefix(400 + round)
			deadline := time.Now().Add(120 * time.Second)
			for {
				var arriving, unsent int
				store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE kind = 'stage_arrival' AND status <> 'done'`).Scan(&arriving)
				store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'automation_message' AND status <> 'sent'`).Scan(&unsent)
				if arriving == 0 && unsent == 0 && hooks.cards() >= placed*(round+1) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("round %d: after 120 s, %d stage-arrival jobs not done, %d automation messages not sent, %d webhooks received; jobs: %s",
						round, arriving, unsent, hooks.cards(), jobStates(store))
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			if dup := hooks.duplicates(); len(dup) > 0 {
				t.Errorf("round %d: cards whose webhook was delivered more than once: %v", round, dup)
			}
			var msgs, clientsWithMsg, twice, arrivals, multiRun int
			store.QueryRow(ctx, `SELECT COUNT(*), COUNT(DISTINCT o.client_id) FROM outbox o JOIN clients c ON c.account_id = o.account_id AND c.id = o.client_id
				WHERE o.kind = 'automation_message' AND c.phone_national LIKE ?`, prefix).Scan(&msgs, &clientsWithMsg)
			store.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT o.client_id FROM outbox o JOIN clients c ON c.account_id = o.account_id AND c.id = o.client_id
				WHERE o.kind = 'automation_message' AND c.phone_national LIKE ? GROUP BY o.client_id HAVING COUNT(*) > 1) d`, prefix).Scan(&twice)
			store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE kind = 'stage_arrival'`).Scan(&arrivals)
			store.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT j.id FROM jobs j JOIN job_attempts a ON a.account_id = j.account_id AND a.job_id = j.id
				WHERE j.kind IN ('stage_arrival', 'deliver_message') AND a.ok GROUP BY j.id HAVING COUNT(*) > 1) d`).Scan(&multiRun)
			if msgs != placed || clientsWithMsg != placed || twice != 0 {
				t.Errorf("round %d: %d automation messages for %d clients (%d with more than one); %d clients were placed", round, msgs, clientsWithMsg, twice, placed)
			}
			var sentTwice int
			store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'automation_message' AND attempts <> 1`).Scan(&sentTwice)
			if sentTwice != 0 {
				t.Errorf("round %d: %d automation messages sent other than once", round, sentTwice)
			}
			if multiRun != 0 {
				t.Errorf("round %d: %d stage-arrival or message jobs ran more than once", round, multiRun)
			}
			var spanAll time.Duration
			for _, s := range results {
				spanAll = max(spanAll, s.end.Sub(results[0].start))
			}
			t.Logf("round %d: 6 x %d rows through 2 servers in %v; lock seen held %d, waited for %d; %d messages, %d arrival jobs, %d webhooks in all",
				round, perBatch, spanAll.Round(time.Millisecond), held, waiting, msgs, arrivals, hooks.cards())
		}
	})

	t.Run("BATCH_IN_PROGRESS only past the wait", func(t *testing.T) {
		const wait = 150 * time.Millisecond
		addrs := []string{freeAddr(t), freeAddr(t)}
		for _, a := range addrs {
			startServe(t, dsn, a, "--worker=false", "--batch-wait="+wait.String())
		}
		busy, ok := 0, 0
		for round := 0; round < *faultTrials; round++ {
			var wg sync.WaitGroup
			results := make([]*sent, 6)
			for i := range results {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := &sent{kind: "ingest", server: i % 2, phones: phoneSet(700+round, i*500, i*500+500)}
					s.start = time.Now()
					var err error
					s.status, s.body, err = post(addrs[s.server], ingestPath, ingestBody(s.phones))
					s.end = time.Now()
					if err != nil {
						t.Errorf("batch %d: %v", i, err)
					}
					results[i] = s
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			for i, s := range results {
				var placed int
				store.QueryRow(ctx, `SELECT COUNT(*) FROM cards k JOIN clients c ON c.account_id = k.account_id AND c.id = k.client_id WHERE c.phone_national = ?`,
					strings.TrimPrefix(s.phones[0], "+34")).Scan(&placed)
				switch s.status {
				case 200:
					ok++
					if placed != 1 {
						t.Errorf("round %d: batch %d answered 200 but its first row has %d cards", round, i, placed)
					}
				case 409:
					busy++
					if s.body["error_code"] != "BATCH_IN_PROGRESS" {
						t.Errorf("round %d: batch %d: 409 %v", round, i, s.body)
					}
					if took := s.end.Sub(s.start); took < wait {
						t.Errorf("round %d: batch %d got BATCH_IN_PROGRESS after %v, before the %v wait", round, i, took, wait)
					}
					if placed != 0 {
						t.Errorf("round %d: batch %d was refused but wrote its rows", round, i)
					}
				default:
					t.Errorf("round %d: batch %d answered %d: %v", round, i, s.status, s.body)
				}
			}
		}
		t.Logf("%d batches ran, %d got BATCH_IN_PROGRESS after waiting %v", ok, busy, wait)
		if ok == 0 {
			t.Error("no batch ran")
		}
	})
}

// hookCounter is a webhook receiver counting deliveries per card.
type hookCounter struct {
	url   string
	mu    sync.Mutex
	count map[int64]int
}

func newHookCounter(t *testing.T) *hookCounter {
	h := &hookCounter{count: map[int64]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			Data struct {
				CardID int64 `json:"card_id"`
			} `json:"data"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &ev) == nil && ev.Data.CardID != 0 {
			h.mu.Lock()
			h.count[ev.Data.CardID]++
			h.mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/new-lead"
	return h
}

// cards is how many cards had their webhook delivered.
func (h *hookCounter) cards() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.count)
}

// duplicates lists the cards delivered more than once.
func (h *hookCounter) duplicates() map[int64]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[int64]int{}
	for id, n := range h.count {
		if n > 1 {
			out[id] = n
		}
	}
	return out
}
