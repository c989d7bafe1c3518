package patients_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/patients"
)

// TestCodeLimits: three codes per phone and twenty per client address in
// any hour, then RATE_LIMITED saying when the oldest leaves the window.
func TestCodeLimits(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		ask := func(phone, addr string, at time.Time) error {
			_, err := patients.RequestCode(ctx, store, c.page, phone, addr, at)
			return err
		}
		const phone = "+34611000001"
		for i := range patients.CodesPerPhone {
			wantCode(t, ask(phone, "192.0.2.1", monday.Add(time.Duration(i)*time.Minute)), "")
		}
		err := ask(phone, "192.0.2.2", monday.Add(10*time.Minute))
		wantCode(t, err, errs.RateLimited)
		if got := err.(*errs.Error).Details.(map[string]any)["retry_after_seconds"]; got != int64(50*60) {
			t.Fatalf("retry_after_seconds = %v, want %d", got, 50*60)
		}
		// The same national number written another way is the same phone.
		wantCode(t, ask("611 000 001", "192.0.2.3", monday.Add(10*time.Minute)), errs.RateLimited)
		// An hour after the first, one more may go.
		wantCode(t, ask(phone, "192.0.2.1", monday.Add(time.Hour+time.Second)), "")
		wantCode(t, ask(phone, "192.0.2.1", monday.Add(time.Hour+2*time.Second)), errs.RateLimited)

		// Twenty per address, whatever the phones (four were asked from .1).
		later := monday.Add(3 * time.Hour)
		for i := range patients.CodesPerAddress {
			wantCode(t, ask(fmt.Sprintf("+346120000%02d", i), "198.51.100.7", later), "")
		}
		wantCode(t, ask("+34612000099", "198.51.100.7", later), errs.RateLimited)
		wantCode(t, ask("+34612000099", "198.51.100.8", later), "")

		wantCode(t, ask("12", "192.0.2.1", later), errs.InvalidPhone)
		var n int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE account_id = ? AND kind = 'verification_code'`, c.acct.ID).Scan(&n)
		if want := patients.CodesPerPhone + 1 + patients.CodesPerAddress + 1; n != want {
			t.Fatalf("%d codes queued, want %d (one per code granted)", n, want)
		}
		// What is stored is not the code.
		code := c.code(t, "+34612000099")
		store.QueryRow(ctx, `SELECT COUNT(*) FROM verification_codes WHERE code_hash = ? OR code_salt = ?`, code, code).Scan(&n)
		if n != 0 {
			t.Fatal("a code is stored in clear")
		}
	})
}

// TestCodeChecks: five tries, ten minutes, one booking per code, and a
// code given back when its booking is refused.
func TestCodeChecks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		c := newClinic(t, store)
		cleaning := c.ids.Services["cleaning"]
		book := func(phone, code, start string, at time.Time) error {
			wt, _ := calendar.ParseWallTime(start)
			_, err := patients.Book(ctx, store, c.page, patients.BookInput{ServiceID: cleaning, StartAt: wt, Code: code,
				Client: calendar.ClientInput{Phone: phone, FirstName: "Pat"}}, at)
			return err
		}
		wrong := func(code string) string { return fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000) }

		// Four wrong tries, the right one fifth: booked.
		code := c.newCode(t, "+34620000001", monday)
		for range patients.CodeTries - 1 {
			wantCode(t, book("+34620000001", wrong(code), "2026-11-23T10:00:00", monday), errs.VerificationFailed)
		}
		wantCode(t, book("+34620000001", code, "2026-11-23T10:00:00", monday), "")
		// Used: never again, not even for another slot.
		wantCode(t, book("+34620000001", code, "2026-11-23T11:00:00", monday), errs.VerificationFailed)

		// Five wrong tries: the right code is dead.
		code = c.newCode(t, "+34620000002", monday)
		for range patients.CodeTries {
			wantCode(t, book("+34620000002", wrong(code), "2026-11-23T10:30:00", monday), errs.VerificationFailed)
		}
		wantCode(t, book("+34620000002", code, "2026-11-23T10:30:00", monday), errs.VerificationFailed)

		// Expired after ten minutes.
		code = c.newCode(t, "+34620000003", monday)
		wantCode(t, book("+34620000003", code, "2026-11-23T11:30:00", monday.Add(patients.CodeLifetime)), errs.VerificationFailed)

		// Another phone's code is wrong for this one; empty is wrong.
		code = c.newCode(t, "+34620000004", monday)
		wantCode(t, book("+34620000005", code, "2026-11-23T11:30:00", monday), errs.VerificationFailed)
		wantCode(t, book("+34620000004", "", "2026-11-23T11:30:00", monday), errs.VerificationFailed)

		// A refused booking gives the code back: the patient picks again.
		wantCode(t, book("+34620000004", code, "2026-11-23T11:10:00", monday), errs.SlotNotAvailable)
		wantCode(t, book("+34620000004", code, "2026-11-23T11:30:00", monday), "")
		wantCode(t, book("+34620000004", code, "2026-11-23T12:00:00", monday), errs.VerificationFailed)

		// Two codes live at once: either books.
		first := c.newCode(t, "+34620000006", monday)
		c.newCode(t, "+34620000006", monday.Add(time.Minute))
		wantCode(t, book("+34620000006", first, "2026-11-23T12:00:00", monday.Add(2*time.Minute)), "")
	})
}

// TestNoVerification: a page that verifies no phones has no codes and
// books without one.
func TestNoVerification(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		newClinic(t, store)
		_ = ctx
		rival := openRival(t, store)
		_, err := patients.RequestCode(ctx, store, rival, "+447700900123", "192.0.2.1", monday)
		wantCode(t, err, errs.NotFound)
		wt, _ := calendar.ParseWallTime("2026-11-23T10:00:00")
		b, err := patients.Book(ctx, store, rival, patients.BookInput{ServiceID: rival.Services[0].ID, StartAt: wt,
			Client: calendar.ClientInput{Phone: "07700 900123", FirstName: "Tom"}}, monday)
		if err != nil || b.Appointment.Timezone != "Europe/London" || b.Appointment.StartAt != "2026-11-23T10:00:00Z" {
			t.Fatalf("book = %+v, %v", b, err)
		}
	})
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}
