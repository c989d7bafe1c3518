package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
)

// TestConfirmationRepliesEndToEnd runs serve with a (local) Twilio: a
// booking's confirmation request reaches the patient, a signed "1" confirms
// the appointment and is answered; on a second booking "no" declines it,
// withdraws its reminder, and both changes reach the account's webhook as
// appointment.confirmation_changed (docs/contract.md, Replies that act).
func TestConfirmationRepliesEndToEnd(t *testing.T) {
	for _, engine := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(engine), func(t *testing.T) {
			var (
				mu     sync.Mutex
				events []map[string]any
			)
			recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var ev map[string]any
				json.NewDecoder(r.Body).Decode(&ev)
				mu.Lock()
				events = append(events, ev)
				mu.Unlock()
			}))
			t.Cleanup(recv.Close)
			// A reminder a day before, and a webhook for confirmation changes.
			e := startNorte(t, engine, "notifications: {confirmation_request: true, reminders: [\"24h\"]}\n"+
				"webhooks: [{key: crm, url: \""+recv.URL+"\", events: [appointment.confirmation_changed]}]\n")
			store, err := db.Open(context.Background(), e.dsn, db.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			confirmation := func(phone string) (id int64, status string) {
				t.Helper()
				err := store.QueryRow(context.Background(), `SELECT a.id, a.confirmation_status FROM appointments a JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id
					WHERE c.phone_national = ? ORDER BY a.id DESC LIMIT 1`, strings.TrimPrefix(phone, "+34")).Scan(&id, &status)
				if err != nil {
					t.Fatal(err)
				}
				return id, status
			}
			answer := func(phone, sid, body string) {
				t.Helper()
				in := map[string][]string{"MessageSid": {sid}, "From": {phone}, "To": {"+34910000001"}, "Body": {body}, "NumMedia": {"0"}}
				if code, out := e.twilioPost("inbound", in, true); code != 200 {
					t.Fatalf("inbound %q: %d %s", body, code, out)
				}
			}

			// 1. Booking -> request at Twilio -> "1" -> confirmed, answered.
			e.book(patientPhone, "Nora", "", 10)
			e.waitFor("the confirmation request sent", func() bool { return e.find("booking_confirmation", patientPhone, "sent") != nil })
			if f := e.twilio.Sent()[0]; f.Get("To") != patientPhone || !strings.Contains(f.Get("Body"), "¿confirmas") {
				t.Fatalf("Twilio got %v", f)
			}
			// It ends with the appointment's manage link (docs/manage-links.md).
			if body := e.twilio.Sent()[0].Get("Body"); !regexp.MustCompile(`\nConfirmar, cancelar o cambiar: ` + regexp.QuoteMeta(publicBase) + `/m/[A-Za-z0-9_-]{32}$`).MatchString(body) {
				t.Errorf("no manage link at the end of %q", body)
			}
			answer(patientPhone, "SMin00000000000000000000000000conf1", "1")
			if _, s := confirmation(patientPhone); s != "confirmed" {
				t.Fatalf("after 1: %s", s)
			}
			e.waitFor("the confirmation answer", func() bool { return e.find("channel_reply", patientPhone, "sent") != nil })
			if r := e.find("channel_reply", patientPhone, "sent"); !strings.Contains(r.Body, "confirmada") {
				t.Errorf("answer %q", r.Body)
			}
			if r := e.find("booking_reminder", patientPhone, "pending"); r == nil {
				t.Errorf("the confirmed appointment has no pending reminder: %+v", e.outbox())
			}

			// 2. Another patient's booking -> "no" -> declined, reminder withdrawn.
			const other = "+34600222555"
			e.book(other, "Iker", "", 12)
			e.waitFor("the second request sent", func() bool { return e.find("booking_confirmation", other, "sent") != nil })
			answer(other, "SMin00000000000000000000000000conf2", "no")
			id, s := confirmation(other)
			if s != "declined" {
				t.Fatalf("after no: %s", s)
			}
			e.waitFor("the decline answer", func() bool { return e.find("channel_reply", other, "sent") != nil })
			if r := e.find("channel_reply", other, "sent"); !strings.Contains(r.Body, "no podrás venir") {
				t.Errorf("answer %q", r.Body)
			}
			rem := e.find("booking_reminder", other, "pending", "sent", "cancelled")
			if rem == nil || rem.Status != "cancelled" || rem.Error == nil || !strings.Contains(*rem.Error, "declined") {
				t.Fatalf("the declined appointment's reminder: %+v", rem)
			}
			var jobStatus string
			store.QueryRow(context.Background(), `SELECT status FROM jobs WHERE outbox_id = ?`, rem.ID).Scan(&jobStatus)
			if jobStatus != "done" {
				t.Errorf("the withdrawn reminder's job is %q", jobStatus)
			}
			for _, f := range e.twilio.Sent() {
				if f.Get("To") == other && strings.Contains(f.Get("Body"), "Recordatorio") {
					t.Errorf("a reminder reached the patient who declined: %v", f)
				}
			}

			// 3. Both changes reached the webhook.
			e.waitFor("two confirmation_changed events", func() bool { mu.Lock(); defer mu.Unlock(); return len(events) == 2 })
			mu.Lock()
			defer mu.Unlock()
			got := map[string]bool{}
			for _, ev := range events {
				data, _ := ev["data"].(map[string]any)
				if ev["type"] != "appointment.confirmation_changed" || data == nil {
					t.Fatalf("event %v", ev)
				}
				got[data["confirmation_status"].(string)] = true
				if data["confirmation_status"] == "declined" && data["appointment_id"] != float64(id) {
					t.Errorf("declined event for appointment %v, want %d", data["appointment_id"], id)
				}
			}
			if !got["confirmed"] || !got["declined"] {
				t.Errorf("events %v", events)
			}
		})
	}
}
