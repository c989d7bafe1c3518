package offers_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// The acme fixture: Dr. López works Mon 09-13/15-19 and Tue 09-17 (Madrid);
// "Limpieza dental" lasts 30 min; the list runs every 15 min, seats are held
// 2 h, and an entry is flagged after 3 expired offers. This list runs with a
// 1-day horizon so the free capacity is small and exact.
const fixture = `account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
waitlists: [{key: main, name: General, active: true, horizon_days: 1, services: [cleaning], run_every: 15m, seat_ttl: 2h, max_offers: 3}]`

func status(t *testing.T, store *db.DB, id int64) (string, int, bool) {
	var s string
	var attempts int
	var flagged bool
	if err := store.QueryRow(context.Background(), `SELECT status, queue_attempts, flagged_for_review FROM waitlist_entries WHERE id = ?`, id).Scan(&s, &attempts, &flagged); err != nil {
		t.Fatal(err)
	}
	return s, attempts, flagged
}

func TestSeatOffers(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		// Tuesday 2026-11-24 15:30 Madrid; the run at 15:45 sees 75 free
		// minutes until 17:00 (two 30-minute seats), and Wednesday, the rest
		// of the 1-day horizon, has no working hours.
		now := time.Date(2026, 11, 24, 14, 30, 0, 0, time.UTC)
		ws := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
		data, _ := os.ReadFile("../workspace/testdata/acme.yaml")
		if _, err := ws.Apply(ctx, data); err != nil {
			t.Fatal(err)
		}
		if _, err := ws.Apply(ctx, []byte(fixture)); err != nil {
			t.Fatal(err)
		}
		acct, _ := account.BySlug(ctx, store, "acme")
		add := func(phone string, priority int) int64 {
			res, err := waitlist.Add(ctx, store, acct, waitlist.AddRequest{Phone: phone, FirstName: "P", ServiceNames: []string{"Limpieza dental"},
				Prefs: waitlist.Prefs{Priority: &priority}}, now)
			if err != nil {
				t.Fatal(err)
			}
			return res.Entries[0].ID
		}
		low := add("+34611000001", 3)
		urgent := add("+34611000002", 0)
		normal := add("+34611000003", 2)

		runAt := func(at time.Time) {
			if _, err := offers.RunDue(ctx, store, at); err != nil {
				t.Fatal(err)
			}
		}
		// The first run is due run_every after the list was created.
		runAt(now.Add(15 * time.Minute))
		if s, n, _ := status(t, store, urgent); s != "queued" || n != 1 {
			t.Fatalf("urgent entry: %s after %d offers", s, n)
		}
		if s, _, _ := status(t, store, normal); s != "queued" {
			t.Fatalf("normal entry: %s", s)
		}
		if s, _, _ := status(t, store, low); s != "waiting" {
			t.Fatalf("low entry offered beyond capacity: %s", s)
		}
		var offered int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'seat_offer'`).Scan(&offered)
		if offered != 2 {
			t.Errorf("seat_offer messages = %d, want 2", offered)
		}
		// Not due again before run_every.
		runAt(now.Add(20 * time.Minute))
		if _, n, _ := status(t, store, urgent); n != 1 {
			t.Fatal("list ran before it was due")
		}
		// The summary reflects the queue.
		sum, err := waitlist.Summarize(ctx, store, acct, now.Add(20*time.Minute))
		if err != nil || sum.Totals.QueuedEntries != 2 || sum.Totals.WaitingEntries != 1 {
			t.Fatalf("summary: %+v %v", sum.Totals, err)
		}

		// With a week of capacity, an offer that expires goes back to the
		// queue and is offered again; after max_offers expiries the entry is
		// flagged for review and offered no more.
		if _, err := ws.Apply(ctx, []byte(strings.Replace(fixture, "horizon_days: 1", "horizon_days: 7", 1))); err != nil {
			t.Fatal(err)
		}
		at := now.Add(15 * time.Minute)
		for round := 2; round <= 3; round++ {
			at = at.Add(2*time.Hour + time.Minute)
			runAt(at)
			if s, n, flagged := status(t, store, urgent); s != "queued" || n != round || flagged {
				t.Fatalf("round %d: urgent entry %s after %d offers (flagged %v)", round, s, n, flagged)
			}
		}
		at = at.Add(2*time.Hour + time.Minute)
		runAt(at)
		if s, n, flagged := status(t, store, urgent); s != "waiting" || n != 3 || !flagged {
			t.Fatalf("after max offers: %s, %d offers, flagged %v", s, n, flagged)
		}
		sum, _ = waitlist.Summarize(ctx, store, acct, at)
		if sum.Totals.FlaggedEntries != 2 {
			t.Errorf("flagged entries = %d, want 2 (urgent and normal)", sum.Totals.FlaggedEntries)
		}
	})
}
