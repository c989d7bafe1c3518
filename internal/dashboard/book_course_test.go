package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// TestBookCourseFromTheGrid: the booking form's "repeat" shows every
// session of the course with its conflicts and writes nothing; confirming
// books them all in one series with one confirmation request; "this and
// the following" cancels from a session on, earlier ones stay booked.
func TestBookCourseFromTheGrid(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		a := h.acme()
		u := h.signedIn("ana@acme.test", "ana-password")
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		slot := at("2026-11-23", "16:30")
		// Week 3 of the course is taken by another client.
		status, body := h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
			"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": svc,
			"professional_id": pro, "event_type_id": visit, "start_at": "2026-12-07T16:30:00", "end_at": "2026-12-07T17:00:00", "timezone": "Europe/Madrid"})
		if status != 200 {
			t.Fatalf("api book: %d %v", status, body)
		}
		form := func(kv ...string) url.Values {
			v := url.Values{"professional_id": {itoa(pro)}, "service_id": {itoa(svc)}, "event_type_id": {itoa(visit)},
				"start": {slot.UTC().Format(time.RFC3339)}, "client_id": {"new"}, "phone": {"611 222 333"}, "first_name": {"Nuria"},
				"repeat": {"1"}, "sessions": {"5"}}
			for i := 0; i < len(kv); i += 2 {
				v.Set(kv[i], kv[i+1])
			}
			return v
		}
		before := h.count("appointments", "1 = 1")

		for _, tc := range []struct {
			name string
			form url.Values
			want int
			says []string
		}{
			{"one session", form("sessions", "1"), http.StatusUnprocessableEntity, []string{"A course has from 2 to 52 sessions.", `value="Nuria"`}},
			{"53 sessions", form("sessions", "53"), http.StatusUnprocessableEntity, []string{"A course has from 2 to 52 sessions."}},
			{"no number", form("sessions", "ten"), http.StatusUnprocessableEntity, []string{"A course has from 2 to 52 sessions."}},
			{"every 5 weeks", form("repeat", "5"), http.StatusUnprocessableEntity, []string{"Choose how often the course repeats."}},
			{"no phone", form("phone", ""), http.StatusUnprocessableEntity, []string{"Enter the new client&#39;s phone number"}},
			{"the check", form(), http.StatusOK, []string{"The course&#39;s 5 sessions", "Sessions with a conflict: 1.",
				"Monday, 23 November, 16:30", "Monday, 30 November, 16:30", "Monday, 7 December, 16:30", "Monday, 21 December, 16:30",
				"It overlaps another appointment of Dr. López (Mon 7 Dec, 16:30 to Mon 7 Dec, 17:00).", `name="confirm_course" value="1"`, "Book the 5 sessions"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				u.post("/app/book", tc.form).must(t, tc.want).contains(t, tc.says...)
				if n := h.count("appointments", "1 = 1"); n != before {
					t.Fatalf("%d appointments written before the course was confirmed", n-before)
				}
				if n := h.count("clients", "phone_national = '611222333'"); n != 0 {
					t.Fatal("the check created the client")
				}
			})
		}

		p := u.post("/app/book", form("confirm_course", "1"))
		if p.Status != http.StatusSeeOther {
			t.Fatalf("confirm: %d %.500s", p.Status, p.Body)
		}
		u.follow(p).must(t, http.StatusOK).contains(t, "Booked a course of 5 sessions for Nuria: Limpieza dental with Dr. López, from Mon 23 Nov, 16:30.",
			"Monday, 7 December, 16:30: It overlaps another appointment of Dr. López")
		rows, err := store.Query(t.Context(), `SELECT a.id, a.series_id FROM appointments a JOIN clients c ON c.account_id = a.account_id AND c.id = a.client_id
			WHERE c.phone_national = '611222333' AND a.status = 'booked' ORDER BY a.start_at`)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		var series int64
		for rows.Next() {
			var id, s int64
			if err := rows.Scan(&id, &s); err != nil {
				t.Fatal(err)
			}
			if series != 0 && s != series {
				t.Fatalf("sessions in series %d and %d", series, s)
			}
			ids, series = append(ids, id), s
		}
		rows.Close()
		if len(ids) != 5 || series == 0 {
			t.Fatalf("booked %d sessions in series %d, want 5 in one", len(ids), series)
		}
		if n := h.count("outbox", "kind = 'booking_confirmation' AND source_type = 'booking' AND source_id IN (?, ?, ?, ?, ?)", ids[0], ids[1], ids[2], ids[3], ids[4]); n != 1 {
			t.Fatalf("%d confirmation requests for the course, want 1", n)
		}

		// Today marks a course's session and offers "this and the following".
		u.get("/app/today?date=2026-11-30").must(t, http.StatusOK).contains(t, ">course<", `name="scope" value="following"`)
		// Another account can neither see nor cancel the sessions.
		bob := h.signedIn("bob@other.test", "bob-password")
		bob.post("/app/appointments/"+itoa(ids[2])+"/cancel", url.Values{"scope": {"following"}}).must(t, http.StatusNotFound)
		// The client's page marks the course and offers "this and the following".
		var client int64
		store.QueryRow(t.Context(), `SELECT client_id FROM appointments WHERE id = ?`, ids[0]).Scan(&client)
		u.get("/app/clients/"+itoa(client)).must(t, http.StatusOK).contains(t, ">course<", `name="scope" value="following"`)
		// Moving the second session and the following a day later: the
		// page offers the choice, four sessions move to Tuesdays.
		u.get("/app/appointments/"+itoa(ids[1])+"/reschedule").must(t, http.StatusOK).contains(t, "This session and the 3 later ones")
		p = u.post("/app/appointments/"+itoa(ids[1])+"/reschedule", url.Values{"start": {"2026-12-01T16:30"}, "scope": {"following"}, "return": {"today"}})
		u.follow(p).must(t, http.StatusOK).contains(t, "4 sessions of the course of Nuria moved, from Tue 1 Dec, 16:30 with Dr. López.")
		for i, day := range []string{"2026-11-23", "2026-12-01", "2026-12-08", "2026-12-15", "2026-12-22"} {
			if n := h.count("appointments", "id = ? AND start_at = ?", ids[i], db.Micros(at(day, "16:30"))); n != 1 {
				t.Errorf("session %d is not on %s at 16:30", i+1, day)
			}
		}
		// "Only this session" moves the one.
		u.post("/app/appointments/"+itoa(ids[1])+"/reschedule", url.Values{"start": {"2026-12-01T16:00"}, "scope": {"one"}}).must(t, http.StatusSeeOther)
		if n := h.count("appointments", "id = ? AND start_at = ?", ids[2], db.Micros(at("2026-12-08", "16:30"))); n != 1 {
			t.Error("moving one session moved the next")
		}
		// The third session and the following: two earlier ones stay.
		p = u.post("/app/appointments/"+itoa(ids[2])+"/cancel", url.Values{"scope": {"following"}, "back": {"/app/today?date=2026-12-07"}})
		u.follow(p).must(t, http.StatusOK).contains(t, "Cancelled 3 sessions of the course; their pending reminders are withdrawn.")
		for i, id := range ids {
			want := "booked"
			if i >= 2 {
				want = "cancelled"
			}
			if n := h.count("appointments", "id = ? AND status = ?", id, want); n != 1 {
				t.Errorf("session %d is not %s", i+1, want)
			}
		}
		// "This one" cancels only the one.
		u.post("/app/appointments/"+itoa(ids[0])+"/cancel", url.Values{}).must(t, http.StatusSeeOther)
		if n := h.count("appointments", "id = ? AND status = 'booked'", ids[1]); n != 1 {
			t.Error("cancelling one session cancelled the next")
		}
	})
}
