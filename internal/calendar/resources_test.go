package calendar_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// roomsFile is a clinic of three professionals working Monday mornings,
// two boxes (a third retired), a laser down for maintenance 10:00-11:00,
// and services needing a room, the laser, or nothing (docs/rooms.md).
const roomsFile = `account: {slug: %s, name: Rooms, timezone: Europe/Madrid, default_region: ES}
event_types: [{key: visit, name: Visit}]
professionals:
  - {key: p0, name: Ana, working_hours: {mon: ["09:00-13:00"]}}
  - {key: p1, name: Bea, working_hours: {mon: ["09:00-13:00"]}}
  - {key: p2, name: Carla, working_hours: {mon: ["09:00-13:00"]}}
resources:
  - {key: box1, name: Box 1, kind: room}
  - {key: box2, name: Box 2, kind: room}
  - {key: box3, name: Box 3, kind: room, active: false}
  - {key: laser, name: Laser, kind: equipment, time_off: [{from: "2026-11-30T09:00:00Z", to: "2026-11-30T10:00:00Z"}]}
services:
  - {key: clean, name: Cleaning, default_duration_minutes: 30, professionals: [p0, p1, p2], event_types: [visit], resources: {kind: room}}
  - {key: laser, name: Laser, default_duration_minutes: 30, professionals: [p0], event_types: [visit], resources: {any_of: [laser]}}
  - {key: plain, name: Talk, default_duration_minutes: 30, professionals: [p0], event_types: [visit]}
`

func roomsClinic(t *testing.T, store *db.DB, slug string) (account.Account, *workspace.Result) {
	t.Helper()
	res, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(context.Background(), []byte(fmt.Sprintf(roomsFile, slug)))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := account.BySlug(context.Background(), store, slug)
	if err != nil {
		t.Fatal(err)
	}
	return acct, res
}

// bookRoom books service key with professional pro at start (30 minutes).
func bookRoom(store *db.DB, acct account.Account, res *workspace.Result, key, pro string, start time.Time, phone string, freeOnly bool, now time.Time) (calendar.Booking, error) {
	svc, p, et := res.IDs.Services[key], res.IDs.Professionals[pro], res.IDs.EventTypes["visit"]
	from, _ := calendar.ParseWallTime(start.Format("2006-01-02T15:04:05"))
	to, _ := calendar.ParseWallTime(start.Add(30 * time.Minute).Format("2006-01-02T15:04:05"))
	return calendar.Book(context.Background(), store, acct, calendar.BookRequest{
		Client: calendar.ClientInput{Phone: phone, FirstName: "Eva"}, ServiceID: &svc, ProfessionalID: &p, EventTypeID: &et,
		StartAt: from, EndAt: to, Timezone: "Europe/Madrid", FreeSlotOnly: freeOnly}, now)
}

// slotsAt lists the professionals (by name) with a slot of service key at
// start, from the free-slot list; it also checks capacity agrees.
func slotsAt(t *testing.T, store *db.DB, acct account.Account, res *workspace.Result, key string, start time.Time, now time.Time) string {
	t.Helper()
	ctx := context.Background()
	list, err := calendar.ListFreeSlots(ctx, store, acct, calendar.SlotsQuery{ServiceID: res.IDs.Services[key], StartDate: "2026-11-30",
		Days: 1, Limit: calendar.SlotLimitMax}, now)
	if err != nil {
		t.Fatal(err)
	}
	av, err := calendar.ComputeAvailability(ctx, store, acct, calendar.AvailabilityQuery{StartDate: "2026-11-30", Days: 1,
		ServiceIDs: []int64{res.IDs.Services[key]}}, now)
	if err != nil {
		t.Fatal(err)
	}
	if av.Services[0].Capacity != len(list.Slots) {
		t.Errorf("%s: capacity %d, %d slots listed", key, av.Services[0].Capacity, len(list.Slots))
	}
	var names []string
	for _, s := range list.Slots {
		if s.StartAtUTC.Equal(start) {
			names = append(names, s.Professional.Name)
		}
	}
	return strings.Join(names, " ")
}

// TestSlotsAndBookingWithRooms: a room is given by id to each booking; a
// slot vanishes only when every acceptable room is taken; a retired room
// is never given; the last booking without a room is made with
// no_resource_free through the API and refused from free slots; resource
// time off takes the laser; a service needing nothing is untouched.
func TestSlotsAndBookingWithRooms(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := roomsClinic(t, store, "rooms")
		now := monday(8, 0)
		at := monday(9, 0)
		if got := slotsAt(t, store, acct, res, "clean", at, now); got != "Ana Bea Carla" {
			t.Fatalf("slots at 09:00 = %q", got)
		}
		rooms := []string{}
		for i, pro := range []string{"p0", "p1"} {
			b, err := bookRoom(store, acct, res, "clean", pro, at, fmt.Sprintf("+3461100000%d", i), false, now)
			if err != nil {
				t.Fatal(err)
			}
			if b.Appointment.Resource == nil || len(b.Appointment.Warnings) != 0 {
				t.Fatalf("booking %d: resource %v, warnings %v", i, b.Appointment.Resource, codes(b.Appointment.Warnings))
			}
			rooms = append(rooms, b.Appointment.Resource.Name)
		}
		if strings.Join(rooms, ",") != "Box 1,Box 2" {
			t.Errorf("rooms given = %v, want Box 1 then Box 2", rooms)
		}
		if got := slotsAt(t, store, acct, res, "clean", at, now); got != "" {
			t.Errorf("with both rooms taken, slots at 09:00 = %q", got)
		}
		if got := slotsAt(t, store, acct, res, "clean", monday(9, 30), now); got != "Ana Bea Carla" {
			t.Errorf("slots at 09:30 = %q", got)
		}
		if _, err := bookRoom(store, acct, res, "clean", "p2", at, "+34611000009", true, now); !errors.Is(err, calendar.ErrSlotTaken) {
			t.Errorf("a free-slot booking without a room: err = %v", err)
		}
		b, err := bookRoom(store, acct, res, "clean", "p2", at, "+34611000003", false, now)
		if err != nil {
			t.Fatal(err)
		}
		if b.Appointment.Resource != nil || strings.Join(codes(b.Appointment.Warnings), ",") != calendar.WarnNoResourceFree {
			t.Errorf("third booking: resource %v, warnings %v", b.Appointment.Resource, codes(b.Appointment.Warnings))
		}
		var stored int
		store.QueryRow(context.Background(), `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND resource_id IS NULL`, acct.ID).Scan(&stored)
		if stored != 1 {
			t.Errorf("%d appointments stored without a room, want 1", stored)
		}
		// The laser is down 10:00-11:00 Madrid (09:00-10:00Z).
		if got := slotsAt(t, store, acct, res, "laser", monday(10, 30), now); got != "" {
			t.Errorf("laser slots in maintenance = %q", got)
		}
		if got := slotsAt(t, store, acct, res, "laser", monday(11, 0), now); got != "Ana" {
			t.Errorf("laser slots after maintenance = %q", got)
		}
		if got := slotsAt(t, store, acct, res, "plain", monday(9, 30), now); got != "Ana" {
			t.Errorf("a service needing nothing: %q", got)
		}
	})
}

// TestRacingBookingsForTheLastRoom: three bookings of three professionals
// racing for two rooms get a room each or the warning, never the same room
// twice.
func TestRacingBookingsForTheLastRoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := roomsClinic(t, store, "race-rooms")
		now := monday(8, 0)
		for round := range 4 {
			at := monday(9+round, 0)
			out := make([]calendar.Booking, 3)
			errsOf := make([]error, 3)
			var wg sync.WaitGroup
			for i, pro := range []string{"p0", "p1", "p2"} {
				wg.Go(func() {
					out[i], errsOf[i] = bookRoom(store, acct, res, "clean", pro, at, fmt.Sprintf("+346120%d000%d", round, i), false, now)
				})
			}
			wg.Wait()
			given, warned := map[int64]bool{}, 0
			for i, b := range out {
				if errsOf[i] != nil {
					t.Fatalf("round %d: %v", round, errsOf[i])
				}
				switch r := b.Appointment.Resource; {
				case r == nil && strings.Join(codes(b.Appointment.Warnings), ",") == calendar.WarnNoResourceFree:
					warned++
				case r != nil && !given[r.ID]:
					given[r.ID] = true
				default:
					t.Errorf("round %d: booking %d got %v with warnings %v", round, i, r, codes(b.Appointment.Warnings))
				}
			}
			if len(given) != 2 || warned != 1 {
				t.Errorf("round %d: %d rooms given, %d warnings", round, len(given), warned)
			}
		}
	})
}

// TestRoomsKeepBuffers: an appointment holds its room for its buffers too,
// and a slot needs the room for its own: with buffer_after 10, rooms taken
// from 09:30 leave no 09:00 slot of 30 minutes.
func TestRoomsKeepBuffers(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		acct, res := roomsClinic(t, store, "room-buffers")
		now := monday(8, 0)
		for i, pro := range []string{"p0", "p1"} {
			if _, err := bookRoom(store, acct, res, "clean", pro, monday(9, 30), fmt.Sprintf("+3461300000%d", i), false, now); err != nil {
				t.Fatal(err)
			}
		}
		if got := slotsAt(t, store, acct, res, "clean", monday(9, 0), now); got != "Ana Bea Carla" {
			t.Fatalf("without buffers, slots at 09:00 = %q", got)
		}
		setRules(t, store, "room-buffers", nil, map[string]map[string]any{"clean": {"buffer_after": 10}})
		if got := slotsAt(t, store, acct, res, "clean", monday(9, 0), now); got != "" {
			t.Errorf("with buffer_after 10, slots at 09:00 = %q", got)
		}
	})
}

// TestMoveKeepsOrChangesRoom: a moved appointment keeps its room when it
// is free at the new time, else gets the first free one by id.
func TestMoveKeepsOrChangesRoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := roomsClinic(t, store, "room-moves")
		now := monday(8, 0)
		var ids []int64
		for i, b := range []struct {
			pro string
			at  time.Time
		}{{"p2", monday(11, 0)}, {"p0", monday(11, 0)}, {"p0", monday(9, 0)}, {"p1", monday(9, 30)}} {
			got, err := bookRoom(store, acct, res, "clean", b.pro, b.at, fmt.Sprintf("+3461400000%d", i), false, now)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, got.Appointment.ID)
		}
		room := func(id int64) string {
			var name string
			store.QueryRow(ctx, `SELECT r.name FROM appointments a JOIN resources r ON r.account_id = a.account_id AND r.id = a.resource_id WHERE a.id = ?`, id).Scan(&name)
			return name
		}
		if got := room(ids[1]) + "," + room(ids[3]); got != "Box 2,Box 1" {
			t.Fatalf("rooms = %q", got)
		}
		move := func(id int64, at time.Time) {
			t.Helper()
			m, err := calendar.MoveAppointment(ctx, store, acct, calendar.MoveRequest{AppointmentID: id, Start: at,
				Change: calendar.Change{By: calendar.ByStaff}}, now)
			if err != nil || len(m.Warnings) != 0 {
				t.Fatalf("move: %v, warnings %v", err, codes(m.Warnings))
			}
		}
		move(ids[1], monday(11, 30)) // Box 1 is free there too: Box 2 is kept
		if got := room(ids[1]); got != "Box 2" {
			t.Errorf("after a move to a free time, room = %q", got)
		}
		move(ids[3], monday(9, 0)) // Box 1 is p0's at 09:00: Box 2
		if got := room(ids[3]); got != "Box 2" {
			t.Errorf("after a move onto its room's booking, room = %q", got)
		}
	})
}

// TestSlotsWithoutANeedUnchanged: adding rooms, and a room need to another
// service, leaves the free slots and capacity of a service needing none
// byte for byte as they were.
func TestSlotsWithoutANeedUnchanged(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := clinic(t, store, "unchanged", 4)
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		insertAppointments(t, store, acct, res, randomAppointments(4, 200, now, 7))
		read := func() string {
			t.Helper()
			list, err := calendar.ListFreeSlots(ctx, store, acct, calendar.SlotsQuery{ServiceID: res.IDs.Services["s30"], Days: 7, Limit: calendar.SlotLimitMax}, now)
			if err != nil {
				t.Fatal(err)
			}
			av, err := calendar.ComputeAvailability(ctx, store, acct, calendar.AvailabilityQuery{Days: 7, ServiceIDs: []int64{res.IDs.Services["s30"]}}, now)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := json.Marshal([]any{list, av})
			return string(out)
		}
		before := read()
		if _, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(ctx, []byte(`account: {slug: unchanged}
resources: [{key: box1, name: Box 1, kind: room}]
services: [{key: s45, resources: {kind: room}}]`)); err != nil {
			t.Fatal(err)
		}
		if after := read(); after != before {
			t.Errorf("slots of a service needing nothing changed:\n%s\n%s", before, after)
		}
	})
}
