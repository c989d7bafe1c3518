package patients_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// TestBookNeedsARoom: when cleaning needs the one box, the box taken at
// 10:00 takes the slot from every professional: a patient is refused
// SLOT_NOT_AVAILABLE although Ben is free (docs/rooms.md).
func TestBookNeedsARoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		_, err := (&workspace.Applier{DB: store, Now: func() time.Time { return monday }}).Apply(ctx, []byte(`account: {slug: sunny}
resources: [{key: box1, name: Box 1, kind: room}]
services: [{key: cleaning, resources: {any_of: [box1]}}]`))
		if err != nil {
			t.Fatal(err)
		}
		cleaning := c.ids.Services["cleaning"]
		at, _ := calendar.ParseWallTime("2026-11-23T10:00:00")
		book := func(phone string) (patients.Booked, error) {
			return patients.Book(ctx, store, c.page, patients.BookInput{ServiceID: cleaning, StartAt: at,
				Code: c.newCode(t, phone, monday), Client: calendar.ClientInput{Phone: phone, FirstName: "New"}}, monday)
		}
		b, err := book("+34630000001")
		if err != nil {
			t.Fatal(err)
		}
		if r := b.Appointment.Resource; r == nil || r.Name != "Box 1" {
			t.Fatalf("resource = %+v", r)
		}
		_, err = book("+34630000002")
		wantCode(t, err, errs.SlotNotAvailable)
		list, err := patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: cleaning, Days: 1}, monday)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list.Slots {
			if s.StartAt == "2026-11-23T10:00:00" {
				t.Fatalf("a slot without a free room is listed: %+v", s)
			}
		}
	})
}
