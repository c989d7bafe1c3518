package offers_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/offers"
	"github.com/frontdesk/frontdesk/internal/waitlist"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// oneRoomFile is two professionals sharing one box on Monday mornings, a
// cleaning that needs a room, and its waiting list (docs/rooms.md, "Seat
// offers").
const oneRoomFile = `account: {slug: oneroom, name: One Room, timezone: Europe/Madrid, default_region: ES}
event_types: [{key: visit, name: Visit}]
professionals:
  - {key: p0, name: Ana, working_hours: {mon: ["09:00-13:00"]}}
  - {key: p1, name: Bea, working_hours: {mon: ["09:00-13:00"]}}
resources: [{key: box1, name: Box 1, kind: room}]
services:
  - {key: clean, name: Cleaning, default_duration_minutes: 30, professionals: [p0, p1], event_types: [visit], resources: {kind: room}}
waitlists: [{key: main, name: General, active: true, horizon_days: 3, services: [clean], run_every: 15m, seat_ttl: 2h, max_offers: 3}]
`

type oneRoom struct {
	store    *db.DB
	acct     account.Account
	ids      *workspace.Result
	now      time.Time
	svc, box int64
}

func newOneRoom(t *testing.T, store *db.DB) *oneRoom {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 7, 0, 0, 0, madrid) // Monday
	res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, []byte(oneRoomFile))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := account.BySlug(ctx, store, "oneroom")
	if err != nil {
		t.Fatal(err)
	}
	return &oneRoom{store: store, acct: acct, ids: res, now: now, svc: res.IDs.Services["clean"], box: res.IDs.Resources["box1"]}
}

func (o *oneRoom) add(t *testing.T, phone string) int64 {
	res, err := waitlist.Add(context.Background(), o.store, o.acct, waitlist.AddRequest{Phone: phone, FirstName: "P",
		ServiceNames: []string{"Cleaning"}}, o.now)
	if err != nil {
		t.Fatal(err)
	}
	return res.Entries[0].ID
}

// free says whether professional pro has a free-slot at start.
func (o *oneRoom) free(t *testing.T, pro string, start time.Time) bool {
	list, err := calendar.ListFreeSlots(context.Background(), o.store, o.acct, calendar.SlotsQuery{ServiceID: o.svc,
		ProfessionalIDs: []int64{o.ids.IDs.Professionals[pro]}, StartDate: "2026-11-30", Days: 1, Limit: calendar.SlotLimitMax}, o.now)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Slots {
		if s.StartAtUTC.Equal(start) {
			return true
		}
	}
	return false
}

// heldRoom is the resource entry's offer holds, 0 none.
func (o *oneRoom) heldRoom(t *testing.T, entry int64) int64 {
	var id *int64
	if err := o.store.QueryRow(context.Background(), `SELECT offer_resource_id FROM waitlist_entries WHERE account_id = ? AND id = ?`,
		o.acct.ID, entry).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id == nil {
		return 0
	}
	return *id
}

func (o *oneRoom) offer(t *testing.T, pro string, start time.Time, entry int64) {
	err := o.store.Transact(context.Background(), func(tx *db.Tx) error {
		_, err := offers.OfferTime(context.Background(), tx, o.acct, o.ids.IDs.Professionals[pro], o.svc, start, entry, o.now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// With one room and two professionals, a seat offer holds the room with
// Ana's slot: Bea's slot at that time vanishes and a booking of Bea then
// gets no room; accepting books Ana with the room; releasing gives it
// back (docs/rooms.md, "Seat offers").
func TestSeatOfferHoldsTheRoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		o := newOneRoom(t, store)
		ten, eleven := time.Date(2026, 11, 30, 10, 0, 0, 0, madrid), time.Date(2026, 11, 30, 11, 0, 0, 0, madrid)
		first, second := o.add(t, "+34611000001"), o.add(t, "+34611000002")
		if !o.free(t, "p1", ten) || !o.free(t, "p1", eleven) {
			t.Fatal("Bea is not free at 10:00 and 11:00 before any offer")
		}

		// Accepted: the offer held the room, the booking keeps it.
		o.offer(t, "p0", ten, first)
		if got := o.heldRoom(t, first); got != o.box {
			t.Fatalf("offer holds resource %d, want the box %d", got, o.box)
		}
		if o.free(t, "p1", ten) {
			t.Fatal("Bea's 10:00 is still free while an offer holds the only room")
		}
		svc, bea, et := o.svc, o.ids.IDs.Professionals["p1"], o.ids.IDs.EventTypes["visit"]
		from, _ := calendar.ParseWallTime("2026-11-30T10:00:00")
		to, _ := calendar.ParseWallTime("2026-11-30T10:30:00")
		b, err := calendar.Book(ctx, store, o.acct, calendar.BookRequest{Client: calendar.ClientInput{Phone: "+34611000009", FirstName: "Eva"},
			ServiceID: &svc, ProfessionalID: &bea, EventTypeID: &et, StartAt: from, EndAt: to, Timezone: "Europe/Madrid"}, o.now)
		if err != nil {
			t.Fatal(err)
		}
		if b.Appointment.Resource != nil {
			t.Fatalf("Bea's booking took %+v, held by the offer", b.Appointment.Resource)
		}
		var accepted *offers.Accepted
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			accepted, err = offers.Accept(ctx, tx, o.acct, first, o.now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if accepted == nil || accepted.Booking.Appointment.Resource == nil || accepted.Booking.Appointment.Resource.ID != o.box {
			t.Fatalf("accepted booking %+v, want the held box", accepted)
		}
		if got := o.heldRoom(t, first); got != 0 {
			t.Fatalf("booked entry still holds resource %d", got)
		}

		// Released: the room is free again for Bea.
		o.offer(t, "p0", eleven, second)
		if o.heldRoom(t, second) != o.box || o.free(t, "p1", eleven) {
			t.Fatal("the second offer does not hold the room at 11:00")
		}
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			_, err := offers.Release(ctx, tx, o.acct, second, o.now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if got := o.heldRoom(t, second); got != 0 {
			t.Fatalf("released entry still holds resource %d", got)
		}
		if !o.free(t, "p1", eleven) {
			t.Fatal("Bea's 11:00 is not free after the release")
		}
	})
}

// An automatic run offering two entries at once with one room never holds
// the room twice for the same time: the second is offered another time.
func TestSeatOffersShareOneRoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		o := newOneRoom(t, store)
		a, b := o.add(t, "+34611000001"), o.add(t, "+34611000002")
		if _, err := offers.RunDue(ctx, store, o.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		type hold struct{ start, end, room int64 }
		var got []hold
		for _, id := range []int64{a, b} {
			var h hold
			var room *int64
			if err := store.QueryRow(ctx, `SELECT offer_start_at, offer_end_at, offer_resource_id FROM waitlist_entries
				WHERE account_id = ? AND id = ? AND status = 'queued'`, o.acct.ID, id).Scan(&h.start, &h.end, &room); err != nil {
				t.Fatalf("entry %d not offered: %v", id, err)
			}
			if room == nil || *room != o.box {
				t.Fatalf("entry %d holds no room", id)
			}
			got = append(got, h)
		}
		if got[0].start < got[1].end && got[1].start < got[0].end {
			t.Fatalf("both offers hold the one room at overlapping times: %+v", got)
		}
	})
}
