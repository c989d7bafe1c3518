package pipeline

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const otherNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a02"

// salesNode is a second API node of acme's sales pipeline (webNode's).
const salesNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a03"

// setupTwoNodes is acme with a second pipeline and API input node, so two
// batches of one account can run without queueing on one node.
func setupTwoNodes(t *testing.T, store *db.DB) account.Account {
	t.Helper()
	acct := setupAcme(t, store)
	extra := `account: {slug: acme}
pipelines:
  - key: referrals
    name: Referrals
    status: active
    stages: [{key: new, name: New, stage_type: open, entry_point: true}]
    input_nodes: [{key: partners, uuid: "` + otherNode + `", name: Partners, type: api, active: true}]
  - key: sales
    input_nodes: [{key: fair, uuid: "` + salesNode + `", name: Fair, type: api, active: true, target_stage: new}]
`
	if _, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), []byte(extra)); err != nil {
		t.Fatal(err)
	}
	return acct
}

func rowsOf(maps ...map[string]any) []Row {
	rows := make([]Row, len(maps))
	for i, m := range maps {
		rows[i] = ParseRow(i, m, Defaults{})
	}
	return rows
}

// Batches of one account race over the same phones and e-mails through two
// nodes: every phone and every e-mail ends with exactly one client, and
// every row was answered created or updated (none failed on a unique key).
func TestConcurrentBatchesNeverDuplicateClients(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := setupTwoNodes(t, store)
		in := &Ingester{DB: store, Wait: time.Minute}
		const streams, rounds = 6, 4
		var wg sync.WaitGroup
		errc := make(chan error, streams*rounds)
		for s := 0; s < streams; s++ {
			wg.Add(1)
			go func(s int) {
				defer wg.Done()
				node := []string{webNode, otherNode}[s%2]
				for r := 0; r < rounds; r++ {
					var maps []map[string]any
					for k := 0; k < 20; k++ {
						// Overlapping phones across streams, and rows known
						// only by an e-mail another stream also sends.
						maps = append(maps,
							map[string]any{"phone_number": fmt.Sprintf("+3469900%04d", (s*7+r*5+k)%40), "first_name": "P"},
							map[string]any{"email": fmt.Sprintf("only%d@example.com", (s+r+k)%15), "first_name": "E"})
					}
					res, err := in.Ingest(context.Background(), acct, IngestRequest{NodeUUID: node, OnDuplicate: OnDuplicateUpdate, Rows: rowsOf(maps...)}, time.Now())
					if err != nil {
						errc <- err
						return
					}
					for _, row := range res.Results {
						if row.Status == StatusFailed && row.Errors[0].Code != CodeConflict { // in-batch duplicates are conflicts
							errc <- fmt.Errorf("row %d failed: %+v", row.Index, row.Errors)
						}
					}
				}
			}(s)
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		for _, q := range []string{
			`SELECT phone_national, COUNT(*) FROM clients WHERE account_id = ? AND phone_national IS NOT NULL GROUP BY phone_national HAVING COUNT(*) > 1`,
			`SELECT email_norm, COUNT(*) FROM clients WHERE account_id = ? AND email_norm IS NOT NULL GROUP BY email_norm HAVING COUNT(*) > 1`,
		} {
			var key string
			var n int
			err := store.QueryRow(context.Background(), q, acct.ID).Scan(&key, &n)
			if !db.IsNoRows(err) {
				t.Fatalf("duplicate clients: %s × %d (err %v)", key, n, err)
			}
		}
		var phones, emails int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM clients WHERE account_id = ? AND phone_national LIKE '699%'`, acct.ID).Scan(&phones)
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM clients WHERE account_id = ? AND email_norm LIKE 'only%'`, acct.ID).Scan(&emails)
		if phones != 40 || emails != 15 {
			t.Fatalf("phones %d (want 40), e-only clients %d (want 15)", phones, emails)
		}
	})
}

// Two batches reach one client by different keys (its phone, its e-mail)
// and each adds a custom field: both fields survive, whatever the order.
func TestConcurrentMergesKeepEveryField(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := setupTwoNodes(t, store)
		in := &Ingester{DB: store, Wait: time.Minute}
		seed := rowsOf(map[string]any{"phone_number": "+34699111000", "email": "same@example.com", "first_name": "Ana"})
		if _, err := in.Ingest(context.Background(), acct, IngestRequest{NodeUUID: webNode, OnDuplicate: OnDuplicateUpdate, Rows: seed}, time.Now()); err != nil {
			t.Fatal(err)
		}
		const n = 12
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				row := map[string]any{"data": map[string]any{fmt.Sprintf("k%d", i): i}}
				node := webNode
				if i%2 == 0 {
					row["phone_number"] = "+34699111000"
				} else {
					row["email"] = "same@example.com"
					node = otherNode
				}
				if _, err := in.Ingest(context.Background(), acct, IngestRequest{NodeUUID: node, OnDuplicate: OnDuplicateUpdate, Rows: rowsOf(row)}, time.Now()); err != nil {
					t.Error(err)
				}
			}(i)
		}
		wg.Wait()
		found, err := contact.ByNationals(context.Background(), store, acct, []string{"699111000"})
		if err != nil {
			t.Fatal(err)
		}
		c := found["699111000"]
		for i := 0; i < n; i++ {
			if _, ok := c.Data[fmt.Sprintf("k%d", i)]; !ok {
				t.Errorf("field k%d lost: %v", i, c.Data)
			}
		}
	})
}

// On PostgreSQL a batch waits only for the batches that share one of its
// phones or e-mails: another transaction of the account holding some keys
// does not stop a batch about other clients, and does stop one about them.
func TestClientLocksAreKeysNotTheAccount(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		if store.Engine() != db.Postgres {
			t.Skip("SQLite runs one write transaction at a time")
		}
		acct := setupTwoNodes(t, store)
		in := &Ingester{DB: store, Wait: time.Minute}
		held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			done <- store.Transact(context.Background(), func(tx *db.Tx) error {
				if err := contact.LockKeys(context.Background(), tx, acct, contact.Keys{Nationals: []string{"699222000"}}); err != nil {
					return err
				}
				close(held)
				<-release
				return nil
			})
		}()
		<-held
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		other := rowsOf(map[string]any{"phone_number": "+34699333000", "first_name": "Free"})
		if _, err := in.Ingest(ctx, acct, IngestRequest{NodeUUID: otherNode, OnDuplicate: OnDuplicateUpdate, Rows: other}, time.Now()); err != nil {
			t.Fatalf("a batch about another client waited for the account: %v", err)
		}

		same := rowsOf(map[string]any{"phone_number": "+34699222000", "first_name": "Held"})
		got := make(chan error, 1)
		go func() {
			_, err := in.Ingest(ctx, acct, IngestRequest{NodeUUID: webNode, OnDuplicate: OnDuplicateUpdate, Rows: same}, time.Now())
			got <- err
		}()
		// It waits on the held key: PostgreSQL shows that very lock ungranted
		// (an int8 advisory key is split into classid and objid).
		h := fnv.New64a()
		fmt.Fprintf(h, "clients/%d/p/%s", acct.ID, "699222000")
		key := h.Sum64()
		for {
			var waiting int
			if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND classid::bigint = ? AND objid::bigint = ?`, int64(key>>32), int64(key&0xffffffff)).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if waiting > 0 {
				break
			}
			select {
			case err := <-got:
				t.Fatalf("the batch did not wait for the held phone: %v", err)
			case <-ctx.Done():
				t.Fatal("timed out")
			case <-time.After(5 * time.Millisecond):
			}
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	})
}

// Two batches place the same existing clients, unchanged (so neither locks
// them) and known by different keys, on one pipeline through two nodes at once, first as new cards and
// then as reactivations: each client ends with one active card, and every
// row is answered added or reactivated by one batch and already active by
// the other, never an error.
func TestConcurrentPlacementsOfOneClient(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := setupTwoNodes(t, store)
		in := &Ingester{DB: store, Wait: time.Minute}
		// One batch knows the clients by phone, the other by e-mail: their
		// key locks do not meet.
		var maps, byPhone, byEmail []map[string]any
		for k := 0; k < 60; k++ {
			phone, email := fmt.Sprintf("+3469944%04d", k), fmt.Sprintf("same%d@example.com", k)
			maps = append(maps, map[string]any{"phone_number": phone, "email": email, "first_name": "Same"})
			byPhone = append(byPhone, map[string]any{"phone_number": phone})
			byEmail = append(byEmail, map[string]any{"email": email})
		}
		// The clients exist, on another pipeline only.
		if _, err := in.Ingest(context.Background(), acct, IngestRequest{NodeUUID: otherNode, OnDuplicate: OnDuplicateUpdate, Rows: rowsOf(maps...)}, time.Now()); err != nil {
			t.Fatal(err)
		}
		sales := func() int64 {
			var id int64
			store.QueryRow(context.Background(), `SELECT pipeline_id FROM input_nodes WHERE uuid = ?`, webNode).Scan(&id)
			return id
		}()
		for round := 0; round < 6; round++ {
			results := make([]*IngestResult, 2)
			var wg sync.WaitGroup
			for g, node := range []string{webNode, salesNode} {
				rows := rowsOf(byPhone...)
				if g == 1 {
					rows = rowsOf(byEmail...)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := in.Ingest(context.Background(), acct, IngestRequest{NodeUUID: node, OnDuplicate: OnDuplicateUpdate, Rows: rows}, time.Now())
					if err != nil {
						t.Errorf("round %d, node %s: %v", round, node, err)
					}
					results[g] = res
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			for k := range maps {
				a, b := results[0].Results[k].Pipeline, results[1].Results[k].Pipeline
				placedOnce := (a.Status == AlreadyActive) != (b.Status == AlreadyActive)
				if !placedOnce || *a.ClientStateID != *b.ClientStateID {
					t.Fatalf("round %d row %d: %s %d and %s %d", round, k, a.Status, *a.ClientStateID, b.Status, *b.ClientStateID)
				}
			}
			var active int
			store.QueryRow(context.Background(), `SELECT COUNT(*) FROM cards WHERE account_id = ? AND pipeline_id = ? AND status = 'active'
				AND client_id IN (SELECT id FROM clients WHERE first_name = 'Same')`, acct.ID, sales).Scan(&active)
			if active != len(maps) {
				t.Fatalf("round %d: %d active cards for %d clients", round, active, len(maps))
			}
			// Remove them all: the next round reactivates.
			if _, err := store.Exec(context.Background(), `UPDATE cards SET status = 'removed' WHERE account_id = ? AND pipeline_id = ?`, acct.ID, sales); err != nil {
				t.Fatal(err)
			}
		}
	})
}
