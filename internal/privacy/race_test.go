package privacy_test

import (
	"context"
	"sync"
	"testing"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/privacy"
	pt "github.com/frontdesk/frontdesk/internal/privacy/privacytest"
)

// TestEraseRacesABooking: a booking by the same phone made while the
// client is erased either lands before the erasure (which then cancels
// it) or after it (on a new client): no booked future appointment is ever
// left on an erased client.
func TestEraseRacesABooking(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		f := newFixture(t, store)
		svc, pro, ev := "Limpieza dental", "Dr. López", "In person"
		start, _ := calendar.ParseWallTime("2026-12-01T12:00:00Z")
		end, _ := calendar.ParseWallTime("2026-12-01T12:30:00Z")
		var wg sync.WaitGroup
		var bookErr, eraseErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, bookErr = calendar.Book(ctx, store, f.acme, calendar.BookRequest{Client: calendar.ClientInput{FirstName: pt.Erasable.First, Phone: pt.Erasable.Phone},
				ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &ev, StartAt: start, EndAt: end, Timezone: "Europe/Madrid"}, pt.Now)
		}()
		go func() {
			defer wg.Done()
			_, eraseErr = privacy.Erase(ctx, store, f.acme, f.erasable.ClientID, audit.Actor{UserName: "race"}, pt.Now)
		}()
		wg.Wait()
		if bookErr != nil || eraseErr != nil {
			t.Fatalf("book: %v, erase: %v", bookErr, eraseErr)
		}
		var left int
		if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments a JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id
			WHERE a.account_id = ? AND c.erased_at IS NOT NULL AND a.status = 'booked' AND a.start_at > ?`, f.acme.ID, db.Micros(pt.Now)).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left != 0 {
			t.Fatalf("%d booked future appointments left on the erased client", left)
		}
	})
}
