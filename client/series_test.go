package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
)

// TestBookSeries: a Recurrence is sent as the body's recurrence, and the
// answer's data.series is read into Series; a single booking has none.
func TestBookSeries(t *testing.T) {
	var sent map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sent = nil
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Errorf("body %s: %v", body, err)
		}
		w.Header().Set("Content-Type", "application/json")
		if sent["recurrence"] == nil {
			io.WriteString(w, `{"status":"success","data":{"id":7,"status":"booked","start_at":"2026-12-01T09:00:00Z"},"client_id":3,"client_created":false}`)
			return
		}
		io.WriteString(w, `{"status":"success","data":{"id":7,"status":"booked","start_at":"2026-12-01T09:00:00Z",
			"series":{"id":2,"occurrences":[
				{"id":7,"start_at":"2026-12-01T09:00:00Z","end_at":"2026-12-01T09:30:00Z","warnings":[]},
				{"id":8,"start_at":"2026-12-15T09:00:00Z","end_at":"2026-12-15T09:30:00Z",
				 "warnings":[{"code":"overlaps_existing_appointment","message":"m","appointment_id":5}]}]}},
			"client_id":3,"client_created":true}`)
	}))
	defer srv.Close()
	c := client.New(srv.URL, acmeKey)
	req := client.BookingRequest{Client: client.BookingClient{Phone: "+34600111222"}, ServiceID: 1, StartAt: "2026-12-01T10:00:00",
		EndAt: "2026-12-01T10:30:00", Timezone: "Europe/Madrid"}

	for _, test := range []struct {
		name      string
		rec       *client.Recurrence
		wantSent  map[string]any
		wantOccur int
	}{
		{"single", nil, nil, 0},
		{"count", client.Weekly(2, 2), map[string]any{"frequency": "weekly", "interval": float64(2), "count": float64(2)}, 2},
		{"until", &client.Recurrence{Frequency: "weekly", Interval: 1, Until: "2026-12-15"},
			map[string]any{"frequency": "weekly", "interval": float64(1), "until": "2026-12-15"}, 2},
	} {
		t.Run(test.name, func(t *testing.T) {
			req.Recurrence = test.rec
			b, err := c.Book(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := sent["recurrence"].(map[string]any)
			if test.wantSent == nil && sent["recurrence"] != nil || test.wantSent != nil && !sameMap(got, test.wantSent) {
				t.Errorf("sent recurrence %v, want %v", sent["recurrence"], test.wantSent)
			}
			if b.Appointment.ID != 7 || b.ClientID != 3 {
				t.Errorf("booking = %+v", b)
			}
			if test.wantOccur == 0 {
				if b.Series != nil {
					t.Errorf("series = %+v, want none", b.Series)
				}
				return
			}
			if b.Series == nil || b.Series.ID != 2 || len(b.Series.Occurrences) != test.wantOccur || !b.ClientCreated {
				t.Fatalf("series = %+v", b.Series)
			}
			o := b.Series.Occurrences[1]
			if o.ID != 8 || !o.StartAt.Equal(time.Date(2026, 12, 15, 9, 0, 0, 0, time.UTC)) || len(o.Warnings) != 1 ||
				o.Warnings[0].AppointmentID != 5 || len(b.Series.Occurrences[0].Warnings) != 0 {
				t.Errorf("occurrence = %+v", o)
			}
		})
	}
}

func sameMap(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
