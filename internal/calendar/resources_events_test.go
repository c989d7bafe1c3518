package calendar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// Every appointment event's data carries resource_id: the room the
// appointment holds at the time of the event, null when none
// (docs/rooms.md, "Webhooks").
func TestAppointmentEventsNameTheRoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acct, res := roomsClinic(t, store, "room-events")
		if _, err := store.Exec(ctx, `INSERT INTO webhooks (account_id, file_key, url, events) VALUES (?, 'h', 'https://example.com/h', ?)`, acct.ID,
			`["appointment.booked", "appointment.rescheduled", "appointment.cancelled", "appointment.confirmation_changed"]`); err != nil {
			t.Fatal(err)
		}
		now := monday(8, 0)
		box1, box2 := res.IDs.Resources["box1"], res.IDs.Resources["box2"]
		book := func(key, pro string, h, m int, phone string) int64 {
			t.Helper()
			b, err := bookRoom(store, acct, res, key, pro, monday(h, m), phone, false, now)
			if err != nil {
				t.Fatal(err)
			}
			return b.Appointment.ID
		}
		a := book("clean", "p0", 9, 0, "+34615000001")  // Box 1
		b := book("plain", "p0", 10, 0, "+34615000002") // no room
		x := book("clean", "p0", 12, 0, "+34615000003") // Box 1
		book("clean", "p2", 12, 0, "+34615000004")      // Box 2
		c := book("clean", "p1", 9, 0, "+34615000005")  // Box 2: Box 1 is a's
		if err := calendar.CancelAppointment(ctx, store, acct, x, calendar.Change{By: calendar.ByStaff}, now); err != nil {
			t.Fatal(err)
		}
		// At 12:00 Box 2 is taken and Box 1 freed: the move changes rooms,
		// and its event names the new one.
		if _, err := calendar.MoveAppointment(ctx, store, acct, calendar.MoveRequest{AppointmentID: c, Start: monday(12, 0),
			Change: calendar.Change{By: calendar.ByStaff}}, now); err != nil {
			t.Fatal(err)
		}
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			_, err := calendar.SetConfirmationBy(ctx, tx, acct, a, calendar.ConfirmationConfirmed, calendar.ConfirmedByStaff, now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, test := range []struct {
			name, event string
			appt        int64
			want        any // the resource id, or nil
		}{
			{"booked with a room", "appointment.booked", a, box1},
			{"booked without a room", "appointment.booked", b, nil},
			{"booked second room", "appointment.booked", c, box2},
			{"cancelled", "appointment.cancelled", x, box1},
			{"rescheduled into another room", "appointment.rescheduled", c, box1},
			{"confirmation changed", "appointment.confirmation_changed", a, box1},
		} {
			t.Run(test.name, func(t *testing.T) {
				var body string
				if err := store.QueryRow(ctx, `SELECT body FROM outbox WHERE account_id = ? AND kind = 'webhook' AND source_type = ? AND source_id = ?`,
					acct.ID, "event:"+test.event, test.appt).Scan(&body); err != nil {
					t.Fatalf("no %s for %d: %v", test.event, test.appt, err)
				}
				var ev struct {
					Data map[string]json.RawMessage `json:"data"`
				}
				if err := json.Unmarshal([]byte(body), &ev); err != nil {
					t.Fatal(err)
				}
				got, ok := ev.Data["resource_id"]
				if !ok {
					t.Fatalf("data lacks resource_id: %s", body)
				}
				want := "null"
				if test.want != nil {
					want = fmt.Sprint(test.want)
				}
				if string(got) != want {
					t.Errorf("resource_id = %s, want %s", got, want)
				}
			})
		}
	})
}
