package main

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
)

// TestSeatOfferEndToEnd runs the closed loop through serve with a local
// fake Twilio, on both engines: a cancellation frees a slot, the next run
// of the waiting list offers it to the top entry naming the slot, the
// patient's signed "No" passes it to the second entry, whose "Sí" books it.
func TestSeatOfferEndToEnd(t *testing.T) {
	for _, engine := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(engine), func(t *testing.T) {
			// A list that looks a week ahead and runs every minute (the
			// shortest interval), brought forward by runNow.
			e := startNorte(t, engine, "waitlists: [{key: main, name: Espera, services: [cleaning], horizon_days: 8, run_every: 1m, seat_ttl: 2h}]\n")
			store, err := db.Open(context.Background(), e.dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			runNow := func() {
				t.Helper()
				if _, err := store.Exec(context.Background(), `UPDATE waitlists SET next_run_at = 0 WHERE active = ?`, true); err != nil {
					t.Fatal(err)
				}
			}
			madrid, _ := time.LoadLocation("Europe/Madrid")
			day := nextWeekday(madrid)
			date := day.Format("2006-01-02")

			// The morning of that day is fully booked: 08:00-10:00, 10:00-10:30, 10:30-13:00.
			book := func(phone, name, from, to string) int64 {
				body, _ := json.Marshal(map[string]any{"client": map[string]any{"phone": phone, "first_name": name},
					"service_name": "Limpieza dental", "professional_name": "Dra. Ruiz", "event_type_name": "Presencial",
					"start_at": date + "T" + from + ":00", "end_at": date + "T" + to + ":00", "timezone": "Europe/Madrid"})
				code, out := e.do("POST", "/api/v2/public/calendar/events", "application/json", string(body), nil)
				if code != 200 && code != 201 {
					t.Fatalf("booking %s-%s: %d %s", from, to, code, out)
				}
				var r struct {
					Data struct {
						ID int64 `json:"id"`
					} `json:"data"`
				}
				json.Unmarshal([]byte(out), &r)
				return r.Data.ID
			}
			book("+34600300001", "Uno", "08:00", "10:00")
			freed := book("+34600300002", "Dos", "10:00", "10:30")
			book("+34600300003", "Tres", "10:30", "13:00")

			// Two patients wait for a morning on that day.
			add := func(phone, name string, priority int) {
				body, _ := json.Marshal(map[string]any{"phone": phone, "first_name": name, "service_names": []string{"Limpieza dental"},
					"priority": priority, "time_preference": "morning", "earliest_date": date, "latest_date": date})
				if code, out := e.do("POST", "/api/v2/public/calendar/waitlist/entries", "application/json", string(body), nil); code != 200 && code != 201 {
					t.Fatalf("waitlist add: %d %s", code, out)
				}
			}
			const first, second = "+34600400001", "+34600400002"
			add(first, "Alba", 0)
			add(second, "Bruno", 1)
			runNow()
			time.Sleep(1500 * time.Millisecond) // a run comes and goes: nothing to offer
			if r := e.find("seat_offer", first, "pending", "sent"); r != nil {
				t.Fatalf("an offer went out with the morning full: %+v", r)
			}

			// The 10:00 appointment is cancelled (in the dashboard).
			if _, err := store.Exec(context.Background(), `UPDATE appointments SET status = 'cancelled' WHERE id = ?`, freed); err != nil {
				t.Fatal(err)
			}
			runNow()
			e.waitFor("the offer to the top entry", func() bool { return e.find("seat_offer", first, "sent") != nil })
			offer := e.find("seat_offer", first, "sent")
			for _, want := range []string{"10:00", "Dra. Ruiz", "Alba"} {
				if !strings.Contains(offer.Body, want) {
					t.Errorf("offer %q does not name %q", offer.Body, want)
				}
			}
			if e.find("seat_offer", second, "pending", "sent") != nil {
				t.Fatal("the second entry was offered the same slot while it was held")
			}
			reply := func(phone, sid, body string) {
				t.Helper()
				in := url.Values{"MessageSid": {sid}, "From": {phone}, "To": {"+34910000001"}, "Body": {body}, "NumMedia": {"0"}}
				if code, out := e.twilioPost("inbound", in, true); code != 200 {
					t.Fatalf("inbound %q: %d %s", body, code, out)
				}
			}
			// "No": the slot goes to the second entry at once.
			reply(first, "SMseat0000000000000000000000000001", "No")
			e.waitFor("the offer to the second entry", func() bool { return e.find("seat_offer", second, "sent") != nil })
			if !strings.Contains(e.find("seat_offer", second, "sent").Body, "10:00") {
				t.Errorf("second offer: %+v", e.find("seat_offer", second, "sent"))
			}
			// "Sí": booked at 10:00, the entry booked, the answer sent.
			reply(second, "SMseat0000000000000000000000000002", "Sí")
			var (
				source, confirmation string
				start                int64
			)
			e.waitFor("the booking", func() bool {
				return store.QueryRow(context.Background(), `SELECT a.source, a.confirmation_status, a.start_at FROM appointments a
					JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id WHERE c.phone_national = '600400002'`).Scan(&source, &confirmation, &start) == nil
			})
			want := time.Date(day.Year(), day.Month(), day.Day(), 10, 0, 0, 0, madrid)
			if source != "waitlist" || confirmation != "confirmed" || !db.Time(start).Equal(want) {
				t.Fatalf("appointment %s %s %v, want waitlist confirmed at %v", source, confirmation, db.Time(start), want)
			}
			var status string
			store.QueryRow(context.Background(), `SELECT e.status FROM waitlist_entries e JOIN clients c ON c.account_id = e.account_id AND c.id = e.client_id
				WHERE c.phone_national = '600400002'`).Scan(&status)
			if status != "booked" {
				t.Errorf("entry %s, want booked", status)
			}
			e.waitFor("the answer", func() bool {
				r := e.find("channel_reply", second, "sent")
				return r != nil && strings.Contains(r.Body, "10:00")
			})
		})
	}
}
