package clientserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBookSeries: the client's Recurrence books a weekly course on the real
// server, and Series lists every occurrence the server wrote
// (docs/series.md); a bad recurrence is the server's 422.
func TestBookSeries(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()
		req := client.BookingRequest{Client: client.BookingClient{FirstName: "Curso", Phone: "+34600777111"},
			ServiceName: "Limpieza dental", ProfessionalName: "dr. lopez", EventTypeName: "in person",
			StartAt: "2026-12-01T10:00:00", EndAt: "2026-12-01T10:30:00", Timezone: "Europe/Madrid",
			Recurrence: &client.Recurrence{Frequency: "weekly", Interval: 1, Until: "2026-12-15"}}
		b := must[*client.Booking](t)(c.Book(ctx, req))
		if b.Series == nil || len(b.Series.Occurrences) != 3 || b.Series.Occurrences[0].ID != b.Appointment.ID {
			t.Fatalf("series = %+v (appointment %d)", b.Series, b.Appointment.ID)
		}
		var count int
		if err := store.QueryRow(ctx, `SELECT COUNT(*) FROM appointments WHERE series_id = ?`, b.Series.ID).Scan(&count); err != nil || count != 3 {
			t.Fatalf("%d appointments of series %d (%v), want 3", count, b.Series.ID, err)
		}
		for i, o := range b.Series.Occurrences {
			if want := time.Date(2026, 12, 1+7*i, 9, 0, 0, 0, time.UTC); !o.StartAt.Equal(want) || !o.EndAt.Equal(want.Add(30*time.Minute)) {
				t.Errorf("occurrence %d = %+v, want %s", i, o, want)
			}
		}

		req.Recurrence = client.Weekly(1, 99)
		if verr := apiError(t, must2(c.Book(ctx, req)), 422, client.CodeInvalidRequest); len(verr.Validation) != 1 ||
			verr.Validation[0].Type != "less_than_equal" {
			t.Fatalf("422 = %+v", verr.Validation)
		}
	})
}

// must2 keeps a call's error.
func must2[T any](_ T, err error) error { return err }
