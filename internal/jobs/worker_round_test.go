package jobs_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// What a round of Calls memoises per account is read once for the whole
// round, not once per job, and read again in the next round (a settings
// change reaches the next round's messages); outside a round it is never
// memoised.
func TestMemoOncePerRound(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		e := setup(t, store)
		var reads, calls atomic.Int32
		read := func() (string, error) { reads.Add(1); return "settings", nil }
		w := &jobs.Worker{DB: store, Clock: e.clock, Concurrency: 4,
			Handlers: map[string]jobs.Handler{"memo_test": func(context.Context, *db.Tx, account.Account, jobs.Job) error { return nil }},
			Calls: map[string]jobs.Call{"memo_test": func(ctx context.Context, _ *db.DB, _ jobs.Commit, acct account.Account, _ jobs.Job) (jobs.Record, error) {
				calls.Add(1)
				_, err := jobs.Memo(ctx, acct.ID, read)
				return nil, err
			}}}
		for round := 1; round <= 2; round++ {
			var queued []jobs.New
			for i := 0; i < 20; i++ {
				queued = append(queued, jobs.New{Kind: "memo_test", Payload: map[string]any{}})
			}
			if err := store.Transact(ctx, func(tx *db.Tx) error { return jobs.Enqueue(ctx, tx, e.acct, e.clock.Now(), queued...) }); err != nil {
				t.Fatal(err)
			}
			if n, err := w.RunOnce(ctx); err != nil || n != 20 {
				t.Fatalf("round %d: claimed %d (%v), want 20", round, n, err)
			}
			if got := reads.Load(); got != int32(round) {
				t.Errorf("after round %d (%d calls): %d reads, want %d", round, calls.Load(), got, round)
			}
		}
		jobs.Memo(ctx, e.acct.ID, read)
		jobs.Memo(ctx, e.acct.ID, read)
		if got := reads.Load(); got != 4 {
			t.Errorf("outside a round: %d reads in all, want 4", got)
		}
	})
}
