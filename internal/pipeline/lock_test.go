package pipeline

import (
	"context"
	"hash/fnv"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const webNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"

func setupAcme(t *testing.T, store *db.DB) account.Account {
	data, _ := os.ReadFile("../workspace/testdata/acme.yaml")
	if _, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), data); err != nil {
		t.Fatal(err)
	}
	acct, err := account.BySlug(context.Background(), store, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

func oneRow() IngestRequest {
	return IngestRequest{NodeUUID: webNode, OnDuplicate: OnDuplicateUpdate,
		Rows: []Row{ParseRow(0, map[string]any{"phone_number": "+34699000001"}, Defaults{})}}
}

// A batch that cannot get its node's turn within Wait is BATCH_IN_PROGRESS;
// the wait is configurable so this takes milliseconds.
func TestBatchWaitsForItsTurn(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct := setupAcme(t, store)
		in := &Ingester{DB: store, Wait: 30 * time.Millisecond}

		// Another batch of this process holds the node.
		lock := in.nodeLock(webNode)
		lock <- struct{}{}
		start := time.Now()
		_, err := in.Ingest(context.Background(), acct, oneRow(), time.Now())
		if !errs.Is(err, errs.BatchInProgress) || time.Since(start) > 5*time.Second {
			t.Fatalf("err = %v after %v", err, time.Since(start))
		}
		// Once it is released the batch runs. The wait is long here: under
		// the race detector on a loaded machine 30 ms did not always cover
		// the 10 ms until the release (CI failed once on PostgreSQL).
		in.Wait = 10 * time.Second
		go func() { time.Sleep(10 * time.Millisecond); <-lock }()
		if _, err := in.Ingest(context.Background(), acct, oneRow(), time.Now()); err != nil {
			t.Fatalf("after release: %v", err)
		}
		in.Wait = 30 * time.Millisecond
		// Dry runs never wait: they write nothing.
		lock <- struct{}{}
		req := oneRow()
		req.DryRun = true
		if _, err := in.Ingest(context.Background(), acct, req, time.Now()); err != nil {
			t.Fatalf("dry run waited: %v", err)
		}
		<-lock

		if store.Engine() != db.Postgres {
			return
		}
		// Another server instance (another connection) holds the node's
		// advisory lock.
		conn, err := store.SQL().Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		h := fnv.New64a()
		h.Write([]byte("ingest/" + webNode))
		if _, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_lock($1)`, int64(h.Sum64())); err != nil {
			t.Fatal(err)
		}
		_, err = in.Ingest(context.Background(), acct, oneRow(), time.Now())
		if !errs.Is(err, errs.BatchInProgress) {
			t.Fatalf("across instances: %v", err)
		}
		conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(h.Sum64()))
		// The lock is free now; a long wait keeps a loaded machine (the
		// node and stage lookups eat into Wait before the lock is asked
		// for) from turning this into a 1 ms lock timeout.
		in.Wait = 10 * time.Second
		if _, err := in.Ingest(context.Background(), acct, oneRow(), time.Now()); err != nil {
			t.Fatalf("after unlock: %v", err)
		}

		// The node's lock and the row's key locks are one statement: the
		// node's comes first, under the timeout, and the keys' after, with
		// none. Another instance holding the node and the row's phone: the
		// batch times out on the node (it never waits on the phone first,
		// where no timeout applies).
		phoneKey := contact.KeyLocks(acct, contact.Keys{Nationals: []string{oneRow().Rows[0].Phone.National}})[0]
		if _, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_lock($1), pg_advisory_lock($2)`, int64(h.Sum64()), phoneKey); err != nil {
			t.Fatal(err)
		}
		in.Wait = 30 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err = in.Ingest(ctx, acct, oneRow(), time.Now()); !errs.Is(err, errs.BatchInProgress) {
			t.Fatalf("node and phone held elsewhere: %v, want BATCH_IN_PROGRESS", err)
		}
		// With the node free, the phone alone is waited for however long
		// it takes (the timeout was lifted): not BATCH_IN_PROGRESS.
		conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(h.Sum64()))
		go func() {
			time.Sleep(300 * time.Millisecond)
			conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, phoneKey)
		}()
		start = time.Now()
		if _, err := in.Ingest(context.Background(), acct, oneRow(), time.Now()); err != nil {
			t.Fatalf("phone held elsewhere: %v, want the batch to wait for it", err)
		}
		if waited := time.Since(start); waited < 250*time.Millisecond {
			t.Errorf("the batch took %v: it did not wait for the phone's lock", waited)
		}
	})
}
