package patients_test

import (
	"context"
	"sync"
	"testing"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
	"github.com/frontdesk/frontdesk/internal/workspace/workspacetest"
)

func openRival(t *testing.T, store *db.DB) patients.Page {
	t.Helper()
	workspacetest.Apply(t, store, monday, "testdata/rival.yaml")
	return openPage(t, store, "rival")
}

// TestBook: a listed slot books as booking_page, a known phone as its
// client, "any professional" as the first free one by id; the slot is gone
// afterwards; what is not a listed slot, or not the page's, is refused, and
// so is a client at max_future_per_client.
func TestBook(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		cleaning := c.ids.Services["cleaning"]
		const maria = "+34600111222"
		// A refused booking gives its code back, so a phone's code is
		// kept until it books.
		codes := map[string]string{}
		book := func(in patients.BookInput) (patients.Booked, error) {
			if in.Client.Phone == "" {
				in.Client.Phone = maria
			}
			if codes[in.Client.Phone] == "" {
				codes[in.Client.Phone] = c.newCode(t, in.Client.Phone, monday)
			}
			in.Code = codes[in.Client.Phone]
			b, err := patients.Book(ctx, store, c.page, in, monday)
			if err == nil {
				delete(codes, in.Client.Phone)
			}
			return b, err
		}
		at := func(s string) calendar.WallTime { wt, _ := calendar.ParseWallTime(s); return wt }

		b, err := book(patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T10:00:00"), Notes: "first visit",
			Client: calendar.ClientInput{FirstName: "Someone", LastName: "Else", Email: "x@example.com"}})
		if err != nil {
			t.Fatal(err)
		}
		a := b.Appointment
		if a.Source != patients.Source || a.Client.ID != c.ids.Clients["maria"] || a.CalendarProfile.Name != "Ana" ||
			a.StartAt != "2026-11-23T09:00:00Z" || a.EndAt != "2026-11-23T09:30:00Z" || a.Timezone != "Europe/Madrid" ||
			a.Notes != "first visit" || len(a.Warnings) != 0 {
			t.Fatalf("appointment = %+v", a)
		}
		stored, err := contact.Get(ctx, store, c.acct, c.ids.Clients["maria"])
		if err != nil || stored.FirstName != "María" || stored.Email != "" {
			t.Fatalf("maria = %+v, %v: names sent are ignored", stored, err)
		}
		// The same time again: Ben is the one left, then nobody.
		b, err = book(patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T10:00:00"),
			Client: calendar.ClientInput{Phone: "+34630000001", FirstName: "New"}})
		if err != nil || b.Appointment.CalendarProfile.Name != "Ben" || b.Appointment.Client.Name != "New" {
			t.Fatalf("second = %+v, %v", b.Appointment, err)
		}
		list, _ := patients.Slots(ctx, store, c.page, patients.SlotQuery{ServiceID: cleaning, Days: 1}, monday)
		for _, s := range list.Slots {
			if s.StartAt == "2026-11-23T10:00:00" {
				t.Fatalf("booked slot still listed: %+v", s)
			}
		}

		for _, test := range []struct {
			name string
			in   patients.BookInput
			code string
		}{
			{"taken", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T10:00:00")}, errs.SlotNotAvailable},
			{"between slots", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T10:10:00")}, errs.SlotNotAvailable},
			{"past", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T08:30:00")}, errs.SlotNotAvailable},
			{"outside hours", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T15:00:00")}, errs.SlotNotAvailable},
			{"weekend", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-28T10:00:00")}, errs.SlotNotAvailable},
			{"not the professional's", patients.BookInput{ServiceID: c.ids.Services["physio"], StartAt: at("2026-11-23T09:00:00"),
				ProfessionalID: ptr(c.ids.Professionals["ana"])}, errs.SlotNotAvailable},
			{"not on the page", patients.BookInput{ServiceID: c.ids.Services["hidden"], StartAt: at("2026-11-23T11:00:00")}, errs.ServiceNotFound},
			{"new phone without a name", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T11:00:00"),
				Client: calendar.ClientInput{Phone: "+34630000002"}}, errs.NameRequired},
			{"a second future appointment", patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T11:00:00")}, errs.BookingLimitReached},
		} {
			t.Run(test.name, func(t *testing.T) {
				_, err := book(test.in)
				wantCode(t, err, test.code)
			})
		}
		// The professional asked for: Ben at 11:00 although Ana is free.
		b, err = book(patients.BookInput{ServiceID: cleaning, StartAt: at("2026-11-23T11:00:00+01:00"),
			ProfessionalID: ptr(c.ids.Professionals["ben"]), Client: calendar.ClientInput{Phone: "+34630000003", FirstName: "Ben's"}})
		if err != nil || b.Appointment.CalendarProfile.Name != "Ben" || b.Appointment.StartAt != "2026-11-23T10:00:00Z" {
			t.Fatalf("ben at 11:00 = %+v, %v", b.Appointment, err)
		}
	})
}

// TestBookRace: one code books once, and one slot once, however many
// requests carry them at the same time.
func TestBookRace(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		at, _ := calendar.ParseWallTime("2026-11-23T12:00:00")
		const n = 6
		run := func(in func(i int) patients.BookInput) (ok int, codes map[string]int) {
			var (
				wg sync.WaitGroup
				mu sync.Mutex
			)
			codes = map[string]int{}
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := patients.Book(ctx, store, c.page, in(i), monday)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						ok++
					} else {
						codes[errs.Code(err)]++
					}
				}()
			}
			wg.Wait()
			return ok, codes
		}
		// One code, six slots (three times, two professionals).
		code := c.newCode(t, "+34640000001", monday)
		starts := []string{"2026-11-23T09:00:00", "2026-11-23T09:30:00", "2026-11-23T10:00:00"}
		ok, codes := run(func(i int) patients.BookInput {
			wt, _ := calendar.ParseWallTime(starts[i%3])
			return patients.BookInput{ServiceID: c.ids.Services["cleaning"], StartAt: wt, Code: code,
				Client: calendar.ClientInput{Phone: "+34640000001", FirstName: "Racer"}}
		})
		if ok != 1 || codes[errs.VerificationFailed] != n-1 {
			t.Fatalf("one code: %d booked, refusals %v", ok, codes)
		}
		// Six phones, one slot of Ben's.
		phones := make([]string, n)
		for i := range phones {
			phones[i] = "+3464100000" + string(rune('0'+i))
			phones[i] = phones[i] + ":" + c.newCode(t, phones[i], monday)
		}
		ok, codes = run(func(i int) patients.BookInput {
			phone, code := phones[i][:len(phones[i])-7], phones[i][len(phones[i])-6:]
			return patients.BookInput{ServiceID: c.ids.Services["physio"], StartAt: at, Code: code,
				Client: calendar.ClientInput{Phone: phone, FirstName: "Racer"}}
		})
		if ok != 1 || codes[errs.SlotNotAvailable] != n-1 {
			t.Fatalf("one slot: %d booked, refusals %v", ok, codes)
		}
		var booked int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE account_id = ? AND source = 'booking_page'`, c.acct.ID).Scan(&booked)
		if booked != 2 {
			t.Fatalf("%d appointments, want 2", booked)
		}
	})
}
