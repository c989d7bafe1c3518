package offers_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// seatEnv is the acme fixture on Tuesday 2026-11-24 at 13:30 Madrid, with
// appointments 13:45-14:15 and 15:15-17:00: the first run (13:45) sees two
// seats with Dr. López, 14:15 and 14:45.
type seatEnv struct {
	t     *testing.T
	store *db.DB
	acct  account.Account
	now   time.Time
}

var madrid, _ = time.LoadLocation("Europe/Madrid")

func newSeatEnv(t *testing.T, store *db.DB) *seatEnv {
	ctx := context.Background()
	now := time.Date(2026, 11, 24, 12, 30, 0, 0, time.UTC)
	ws := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
	data, _ := os.ReadFile("../workspace/testdata/acme.yaml")
	if _, err := ws.Apply(ctx, data); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Apply(ctx, []byte(fixture)); err != nil {
		t.Fatal(err)
	}
	acct, _ := account.BySlug(ctx, store, "acme")
	svc, pro, et := "Limpieza dental", "Dr. López", "In person"
	for _, span := range [][2]string{{"13:45", "14:15"}, {"15:15", "17:00"}} {
		start, _ := calendar.ParseWallTime("2026-11-24T" + span[0] + ":00")
		end, _ := calendar.ParseWallTime("2026-11-24T" + span[1] + ":00")
		if _, err := calendar.Book(ctx, store, acct, calendar.BookRequest{Client: calendar.ClientInput{Phone: "+34611000077", FirstName: "Ocupado"},
			ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &et, StartAt: start, EndAt: end, Timezone: "Europe/Madrid"}, now); err != nil {
			t.Fatal(err)
		}
	}
	return &seatEnv{t: t, store: store, acct: acct, now: now}
}

func (e *seatEnv) add(phone string, priority int, window string) (entry, client int64) {
	e.t.Helper()
	req := waitlist.AddRequest{Phone: phone, FirstName: "Paciente", ServiceNames: []string{"Limpieza dental"},
		Prefs: waitlist.Prefs{Priority: &priority}}
	if window != "" {
		req.Prefs.TimePreference = &window
	}
	res, err := waitlist.Add(context.Background(), e.store, e.acct, req, e.now)
	if err != nil {
		e.t.Fatal(err)
	}
	var c int64
	e.store.QueryRow(context.Background(), `SELECT client_id FROM waitlist_entries WHERE id = ?`, res.Entries[0].ID).Scan(&c)
	return res.Entries[0].ID, c
}

type offered struct {
	status string
	start  *int64
}

func (e *seatEnv) entry(id int64) offered {
	var o offered
	if err := e.store.QueryRow(context.Background(), `SELECT status, offer_start_at FROM waitlist_entries WHERE id = ?`, id).Scan(&o.status, &o.start); err != nil {
		e.t.Fatal(err)
	}
	return o
}

func (e *seatEnv) reply(client int64, yes bool, at time.Time) offers.ReplyResult {
	e.t.Helper()
	var res offers.ReplyResult
	err := e.store.Transact(context.Background(), func(tx *db.Tx) error {
		var err error
		res, err = offers.Reply(context.Background(), tx, e.acct, client, yes, false, at)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func madridAt(h, m int) time.Time { return time.Date(2026, 11, 24, h, m, 0, 0, madrid) }

func TestSeatOfferNamesAndHoldsASlot(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newSeatEnv(t, store)
		ctx := context.Background()
		a, aClient := e.add("+34611000001", 0, "")
		b, bClient := e.add("+34611000002", 1, "")
		c, cClient := e.add("+34611000003", 2, "")
		evening, _ := e.add("+34611000004", 0, "evening") // no evening hours on Tuesday: never offered
		run := madridAt(13, 45)
		if _, err := offers.RunDue(ctx, store, run); err != nil {
			t.Fatal(err)
		}
		if o := e.entry(a); o.status != "queued" || o.start == nil || db.Time(*o.start) != madridAt(14, 15).UTC() {
			t.Fatalf("top entry %+v, want queued on 14:15", o)
		}
		if o := e.entry(b); o.status != "queued" || db.Time(*o.start) != madridAt(14, 45).UTC() {
			t.Fatalf("second entry %+v, want queued on 14:45", o)
		}
		if o := e.entry(c); o.status != "waiting" {
			t.Fatalf("third entry %+v: there were two seats", o)
		}
		if o := e.entry(evening); o.status != "waiting" {
			t.Fatalf("an evening-only entry was offered an afternoon slot: %+v", o)
		}
		var body string
		store.QueryRow(ctx, `SELECT body FROM outbox WHERE kind = 'seat_offer' AND client_id = ?`, aClient).Scan(&body)
		for _, want := range []string{"martes 24 de noviembre a las 14:15", "Dr. López", "Limpieza dental", "15:45"} {
			if !strings.Contains(body, want) {
				t.Errorf("offer %q does not say %q", body, want)
			}
		}
		// Held slots are not free for anyone else.
		slots, err := calendar.FreeSlots(ctx, store, e.acct, nil, run, run.Add(3*time.Hour), run)
		if err != nil || len(slots) != 0 {
			t.Fatalf("free slots while both are held: %v %v", slots, err)
		}

		// "No" releases B's slot and offers it to C in the same transaction.
		if res := e.reply(bClient, false, run.Add(5*time.Minute)); !res.Handled || !strings.Contains(res.Answer, "otra persona") {
			t.Fatalf("no: %+v", res)
		}
		if o := e.entry(b); o.status != "waiting" {
			t.Fatalf("after no, B is %+v", o)
		}
		if o := e.entry(c); o.status != "queued" || db.Time(*o.start) != madridAt(14, 45).UTC() {
			t.Fatalf("after B's no, C is %+v, want the 14:45 slot", o)
		}

		// "Sí" books A's slot: source waitlist, confirmed, entry booked, no confirmation request.
		res := e.reply(aClient, true, run.Add(10*time.Minute))
		if !res.Handled || res.Booked == nil || !strings.Contains(res.Answer, "14:15") {
			t.Fatalf("yes: %+v", res)
		}
		ap := res.Booked.Appointment
		if ap.Source != "waitlist" || ap.ConfirmationStatus != "confirmed" || ap.StartAt != "2026-11-24T13:15:00Z" || len(ap.Warnings) != 0 {
			t.Fatalf("appointment %+v", ap)
		}
		if o := e.entry(a); o.status != "booked" {
			t.Fatalf("after yes, A is %+v", o)
		}
		var events, requests int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE kind = 'webhook_delivery' OR payload LIKE '%appointment.booked%' OR payload LIKE '%entry_resolved%'`).Scan(&events)
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'booking_confirmation' AND client_id = ?`, aClient).Scan(&requests)
		if requests != 0 {
			t.Errorf("a seat accepted by reply was sent %d confirmation requests", requests)
		}
		// A second "sí" from A changes nothing.
		if again := e.reply(aClient, true, run.Add(11*time.Minute)); again.Booked != nil {
			t.Fatal("a repeated yes booked twice")
		}

		// C's slot begins at 14:45 while the hold still runs (until 15:50):
		// a "sí" after that is answered "no longer available" and C waits
		// again.
		late := e.reply(cClient, true, madridAt(15, 5))
		if !late.Handled || late.Booked != nil || !strings.Contains(late.Answer, "ya no está disponible") {
			t.Fatalf("late yes: %+v", late)
		}
		if o := e.entry(c); o.status != "waiting" {
			t.Fatalf("after a yes to a slot that began, C is %+v", o)
		}
		// A reply handler that only takes live offers leaves this one to
		// others (a pending confirmation request comes first).
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			r, err := offers.Reply(ctx, tx, e.acct, cClient, true, true, madridAt(15, 6))
			if err == nil && r.Handled {
				t.Errorf("liveOnly handled a dead offer: %+v", r)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// After the hold expired too: still "no longer available".
		if _, err := offers.RunDue(ctx, store, madridAt(16, 0)); err != nil {
			t.Fatal(err)
		}
		if again := e.reply(cClient, true, madridAt(16, 5)); !again.Handled || again.Booked != nil {
			t.Fatalf("yes after expiry: %+v", again)
		}
		var n int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE source = 'waitlist'`).Scan(&n)
		if n != 1 {
			t.Errorf("%d waiting-list appointments, want 1", n)
		}
		// A client who was never offered anything is not handled.
		other, otherClient := e.add("+34611000099", 3, "")
		_ = other
		if r := e.reply(otherClient, true, run.Add(3*time.Hour)); r.Handled {
			t.Errorf("a yes without an offer was handled: %+v", r)
		}
	})
}

func TestBookingOnAHeldSlot(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newSeatEnv(t, store)
		ctx := context.Background()
		a, aClient := e.add("+34611000001", 0, "")
		run := madridAt(13, 45)
		if _, err := offers.RunDue(ctx, store, run); err != nil {
			t.Fatal(err)
		}
		start, _ := calendar.ParseWallTime("2026-11-24T14:15:00")
		end, _ := calendar.ParseWallTime("2026-11-24T14:45:00")
		svc, pro, et := "Limpieza dental", "Dr. López", "In person"
		b, err := calendar.Book(ctx, store, e.acct, calendar.BookRequest{Client: calendar.ClientInput{Phone: "+34611000050", FirstName: "Otra"},
			ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &et, StartAt: start, EndAt: end, Timezone: "Europe/Madrid"}, run.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Appointment.Warnings) != 1 || b.Appointment.Warnings[0].Code != calendar.WarnHeldSlot || b.Appointment.Warnings[0].EntryID != a {
			t.Fatalf("warnings %+v", b.Appointment.Warnings)
		}
		if o := e.entry(a); o.status != "waiting" {
			t.Fatalf("the hold was not released: %+v", o)
		}
		if r := e.reply(aClient, true, run.Add(2*time.Minute)); r.Booked != nil || !strings.Contains(r.Answer, "ya no está disponible") {
			t.Fatalf("yes after the API took the slot: %+v", r)
		}
	})
}

// Twenty acceptances of one held slot at once (a provider resending, two
// instances): exactly one appointment.
func TestConcurrentAcceptances(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newSeatEnv(t, store)
		ctx := context.Background()
		_, aClient := e.add("+34611000001", 0, "")
		run := madridAt(13, 45)
		if _, err := offers.RunDue(ctx, store, run); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		booked := 0
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := store.Transact(ctx, func(tx *db.Tx) error {
					res, err := offers.Reply(ctx, tx, e.acct, aClient, true, false, run.Add(time.Minute))
					if err == nil && res.Booked != nil {
						mu.Lock()
						booked++
						mu.Unlock()
					}
					return err
				})
				if err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		var n int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND source = 'waitlist'`, e.acct.ID).Scan(&n)
		if n != 1 || booked != 1 {
			t.Fatalf("%d appointments, %d replies booked; want 1 and 1", n, booked)
		}
	})
}

// A client opted out of the channel seat offers go through is not offered a
// slot (the offer would be suppressed and the slot held for nobody): the
// next entry gets it.
func TestSeatOfferSkipsOptedOutClients(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newSeatEnv(t, store)
		ctx := context.Background()
		a, aClient := e.add("+34611000001", 0, "")
		b, _ := e.add("+34611000002", 1, "")
		c, _ := e.add("+34611000003", 2, "")
		var wa int64
		err := store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			if wa, _, err = channels.Save(ctx, tx, nil, e.acct, channels.Channel{Key: "log", Type: channels.TypeLog, Provider: channels.ProviderLog, Active: true},
				"00000000-0000-4000-8000-0000000000b1", e.now); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE accounts SET messaging = '{"default_channel":"log"}' WHERE id = ?`, e.acct.ID); err != nil {
				return err
			}
			_, err = channels.SetConsent(ctx, tx, e.acct, aClient, wa, true, e.now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := offers.RunDue(ctx, store, madridAt(13, 45)); err != nil {
			t.Fatal(err)
		}
		if o := e.entry(a); o.status != "waiting" {
			t.Fatalf("the opted-out client's entry is %+v", o)
		}
		if o := e.entry(b); o.status != "queued" || db.Time(*o.start) != madridAt(14, 15).UTC() {
			t.Fatalf("second entry %+v, want the 14:15 slot", o)
		}
		if o := e.entry(c); o.status != "queued" || db.Time(*o.start) != madridAt(14, 45).UTC() {
			t.Fatalf("third entry %+v, want the 14:45 slot", o)
		}
	})
}
