package offers_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

func TestOfferTiming(t *testing.T) {
	night, _ := channels.ParseQuietHours("21:00-09:00")
	noon, _ := channels.ParseQuietHours("13:00-15:00")
	sat := func(d, h, m int) time.Time { return time.Date(2026, 11, 28+d, h, m, 0, 0, madrid) } // Saturday 28 November
	for _, test := range []struct {
		name         string
		at           time.Time
		ttl          time.Duration
		quiet        channels.QuietHours
		send, expire time.Time
	}{
		{"no quiet hours", sat(0, 4, 12), 2 * time.Hour, channels.QuietHours{}, sat(0, 4, 12), sat(0, 6, 12)},
		{"due inside: goes out at the end, holds from then", sat(0, 4, 12), 2 * time.Hour, night, sat(0, 9, 0), sat(0, 11, 0)},
		{"due before midnight inside", sat(0, 22, 30), 2 * time.Hour, night, sat(1, 9, 0), sat(1, 11, 0)},
		{"outside, ends outside", sat(0, 10, 0), 2 * time.Hour, night, sat(0, 10, 0), sat(0, 12, 0)},
		{"would expire inside: the rest after it", sat(0, 20, 0), 2 * time.Hour, night, sat(0, 20, 0), sat(1, 10, 0)},
		{"would expire at the window's start", sat(0, 20, 0), time.Hour, night, sat(0, 20, 0), sat(1, 9, 0)},
		{"long hold crosses two windows", sat(0, 20, 0), 14 * time.Hour, night, sat(0, 20, 0), sat(2, 10, 0)},
		{"same-day window", sat(0, 12, 30), time.Hour, noon, sat(0, 12, 30), sat(0, 15, 30)},
	} {
		t.Run(test.name, func(t *testing.T) {
			got := offers.OfferTiming(test.at, test.ttl, test.quiet, madrid)
			if !got.SendAt.Equal(test.send) || !got.ExpiresAt.Equal(test.expire) {
				t.Fatalf("got send %s expire %s, want %s and %s", got.SendAt.In(madrid), got.ExpiresAt.In(madrid), test.send, test.expire)
			}
		})
	}
}

// An automatic run at 04:12 on a Saturday under quiet hours 21:00-09:00
// queues its message for 09:00 and holds the seat until 11:00, never 06:12.
func TestSeatOfferWaitsOutQuietHours(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 28, 4, 12, 0, 0, madrid)
		ws := &workspace.Applier{DB: store, Now: func() time.Time { return now.Add(-time.Hour) }}
		data, _ := os.ReadFile("../workspace/testdata/acme.yaml")
		for _, f := range [][]byte{data, []byte(`account: {slug: acme}
waitlists: [{key: main, name: General, active: true, horizon_days: 3, services: [cleaning], run_every: 15m, seat_ttl: 2h, max_offers: 3}]
messaging: {quiet_hours: "21:00-09:00"}`)} {
			if _, err := ws.Apply(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		acct, _ := account.BySlug(ctx, store, "acme")
		res, err := waitlist.Add(ctx, store, acct, waitlist.AddRequest{Phone: "+34611000001", FirstName: "P", ServiceNames: []string{"Limpieza dental"}}, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		entry := res.Entries[0].ID
		if _, err := offers.RunDue(ctx, store, now); err != nil {
			t.Fatal(err)
		}
		var expires, scheduled int64
		if err := store.QueryRow(ctx, `SELECT seat_expires_at FROM waitlist_entries WHERE id = ? AND status = 'queued'`, entry).Scan(&expires); err != nil {
			t.Fatal(err)
		}
		if err := store.QueryRow(ctx, `SELECT scheduled_at FROM outbox WHERE kind = 'seat_offer' AND source_id = ?`, entry).Scan(&scheduled); err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 11, 28, 9, 0, 0, 0, madrid); !db.Time(scheduled).Equal(want) {
			t.Errorf("message scheduled at %s, want %s", db.Time(scheduled).In(madrid), want)
		}
		if want := time.Date(2026, 11, 28, 11, 0, 0, 0, madrid); !db.Time(expires).Equal(want) {
			t.Errorf("hold expires at %s, want %s", db.Time(expires).In(madrid), want)
		}
	})
}

func TestOffersByHand(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newSeatEnv(t, store)
		ctx := context.Background()
		first, _ := e.add("+34611000001", 0, "")
		second, _ := e.add("+34611000002", 1, "")
		e.add("+34611000003", 0, "evening") // no evening hours on Tuesday
		var pro int64
		store.QueryRow(ctx, `SELECT id FROM professionals WHERE account_id = ? AND name = 'Dr. López'`, e.acct.ID).Scan(&pro)
		tx := func(fn func(tx *db.Tx) error) error { return store.Transact(ctx, fn) }

		ft, err := offers.MatchTime(ctx, store, e.acct, pro, 0, madridAt(14, 15), e.now)
		if err != nil {
			t.Fatal(err)
		}
		if len(ft.Matches) != 2 || ft.Matches[0].EntryID != first || ft.Matches[1].EntryID != second {
			t.Fatalf("matches %+v, want first then second", ft.Matches)
		}
		for _, refusal := range []struct {
			name   string
			pro    int64
			start  time.Time
			expect error
		}{
			{"taken", pro, madridAt(13, 45), offers.ErrTimeTaken},
			{"past", pro, madridAt(13, 0), offers.ErrTimePast},
			{"unknown professional", pro + 1000, madridAt(14, 15), offers.ErrUnknownTime},
		} {
			if _, err := offers.MatchTime(ctx, store, e.acct, refusal.pro, 0, refusal.start, e.now); err != refusal.expect {
				t.Errorf("%s: err %v, want %v", refusal.name, err, refusal.expect)
			}
		}

		// Offered to the second by hand: held, and a message is queued.
		if err := tx(func(tx *db.Tx) error {
			_, err := offers.OfferTime(ctx, tx, e.acct, pro, 0, madridAt(14, 15), second, e.now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if o := e.entry(second); o.status != "queued" || db.Time(*o.start) != madridAt(14, 15).UTC() {
			t.Fatalf("second %+v, want queued on 14:15", o)
		}
		var msgs int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'seat_offer' AND source_id = ?`, second).Scan(&msgs)
		if msgs != 1 {
			t.Fatalf("%d seat-offer messages, want 1", msgs)
		}
		// The held time is no longer free to offer again.
		err = tx(func(tx *db.Tx) error {
			_, err := offers.OfferTime(ctx, tx, e.acct, pro, 0, madridAt(14, 15), first, e.now)
			return err
		})
		if err != offers.ErrTimeTaken {
			t.Fatalf("offering a held time: %v", err)
		}

		// Released: the entry waits again and the next in line is offered.
		if err := tx(func(tx *db.Tx) error { _, err := offers.Release(ctx, tx, e.acct, second, e.now); return err }); err != nil {
			t.Fatal(err)
		}
		if o := e.entry(second); o.status != "waiting" {
			t.Fatalf("released entry %+v, want waiting", o)
		}
		if o := e.entry(first); o.status != "queued" {
			t.Fatalf("next in line %+v, want queued after the release", o)
		}
		if err := tx(func(tx *db.Tx) error { _, err := offers.Release(ctx, tx, e.acct, second, e.now); return err }); err != offers.ErrNotHeld {
			t.Fatalf("releasing twice: %v", err)
		}

		// Accepted on the first's behalf: the booking a "sí" makes.
		err = tx(func(tx *db.Tx) error {
			b, err := offers.Accept(ctx, tx, e.acct, first, e.now)
			if err == nil && b == nil {
				t.Error("no booking")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if s, _, _ := status(t, store, first); s != "booked" {
			t.Fatalf("accepted entry is %s", s)
		}
		var booked, events int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND source = 'waitlist' AND start_at = ?`, e.acct.ID, db.Micros(madridAt(14, 15))).Scan(&booked)
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND source_type = 'event:appointment.booked' AND body LIKE '%"source":"waitlist"%'`, e.acct.ID).Scan(&events)
		if booked != 1 || events < 1 {
			t.Fatalf("%d waitlist appointments at 14:15, %d appointment.booked webhooks", booked, events)
		}
		err = tx(func(tx *db.Tx) error {
			_, err := offers.Accept(ctx, tx, e.acct, first, e.now)
			return err
		})
		if err != offers.ErrNotHeld {
			t.Fatalf("accepting a booked offer: %v", err)
		}
		err = tx(func(tx *db.Tx) error {
			_, err := offers.Accept(ctx, tx, e.acct, first+1000, e.now)
			return err
		})
		if err != offers.ErrUnknownOffer {
			t.Fatalf("accepting an unknown offer: %v", err)
		}
	})
}
