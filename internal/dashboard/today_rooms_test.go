package dashboard_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// roomsYAML gives acme a second professional, two rooms (Box 2 under
// maintenance 16:00-17:00 Madrid on Monday 23 Nov), a laser and a
// whitening service that needs a room (docs/rooms.md).
const roomsYAML = `
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
professionals:
  - {key: ruiz, name: Dra. Ruiz, active: true, working_hours: {mon: ["08:00-12:00"], tue: ["08:00-12:00"]}}
resources:
  - {key: box2, name: Box 2, kind: room, time_off: [{from: "2026-11-23T15:00:00Z", to: "2026-11-23T16:00:00Z"}]}
  - {key: box1, name: Box 1, kind: room}
  - {key: laser, name: Laser, kind: equipment}
services:
  - {key: whitening, name: Blanqueamiento, color: "#aa00aa", default_duration_minutes: 30,
     professionals: [lopez, ruiz], event_types: [visit], resources: {kind: room}}
`

// gridHead is where the column headed by text starts on the grid and how
// many grid columns it spans (0, 0 when absent).
func (p page) gridHead(text string) (int, int) {
	m := regexp.MustCompile(`<h2 class="tg-head" style="grid-row: 1; grid-column: (\d+) / span (\d+)">` + regexp.QuoteMeta(text)).FindStringSubmatch(p.Body)
	if m == nil {
		return 0, 0
	}
	a, _ := strconv.Atoi(m[1])
	n, _ := strconv.Atoi(m[2])
	return a, n
}

// gridCol is the grid column of the item with that id attribute (0 when absent).
func (p page) gridCol(id string) int {
	m := regexp.MustCompile(`<div id="` + regexp.QuoteMeta(id) + `"[^>]*grid-column: (\d+)"`).FindStringSubmatch(p.Body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestTodayByRoom: with two rooms and two professionals, Today by room
// shows a column per room then the equipment, each appointment in its
// room's column with its professional's name, a room's time off as
// maintenance, a "No room" column only for the days that need one, a
// retired room still holding an appointment; the toggle only when the
// account has rooms; another account's rooms never; staff and Spanish.
func TestTodayByRoom(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		ana := h.signedIn("ana@acme.test", "ana-password")

		// No resources: no toggle, and by=room is the view by professional.
		for _, path := range []string{"/app/today", "/app/today?by=room"} {
			p := ana.get(path).must(t, http.StatusOK).contains(t, "Dr. López")
			for _, s := range []string{"By room", "By professional", "No room", `name="by"`} {
				if strings.Contains(p.Body, s) {
					t.Errorf("%s without rooms: %q", path, s)
				}
			}
		}

		h.applyYAML(roomsYAML)
		h.applyYAML(`
account: {slug: other, name: Other Clinic, timezone: Europe/London, default_region: GB}
resources: [{key: ob, name: Other Box, kind: room}]
services: [{key: cleaning, resources: {kind: room}}]
`)
		a := h.acme()
		lopez, ruiz := a.Professionals["lopez"], a.Professionals["ruiz"]
		book := func(key string, svc, pro, et int64, day, from, to string) (int64, []string) {
			t.Helper()
			status, body := h.api("POST", "/api/v2/public/calendar/events", key, map[string]any{
				"client":     map[string]any{"first_name": "Lola", "phone": "+34600555666"},
				"service_id": svc, "professional_id": pro, "event_type_id": et,
				"start_at": day + "T" + from + ":00", "end_at": day + "T" + to + ":00", "timezone": "Europe/Madrid"})
			if status != 200 {
				t.Fatalf("book: %d %v", status, body)
			}
			data := body["data"].(map[string]any)
			var codes []string
			for _, w := range data["warnings"].([]any) {
				codes = append(codes, w.(map[string]any)["code"].(string))
			}
			return int64(data["id"].(float64)), codes
		}
		white, clean, visit := a.Services["whitening"], a.Services["cleaning"], a.EventTypes["visit"]
		// 11:00: López gets a room, Ruiz the other; López again gets none.
		first, _ := book(acmeKey, white, lopez, visit, "2026-11-23", "11:00", "11:30")
		second, _ := book(acmeKey, white, ruiz, visit, "2026-11-23", "11:00", "11:30")
		none, codes := book(acmeKey, white, lopez, visit, "2026-11-23", "11:00", "11:30")
		if !strings.Contains(strings.Join(codes, ","), "no_resource_free") {
			t.Fatalf("the third booking's warnings: %v", codes)
		}
		plain, _ := book(acmeKey, clean, lopez, visit, "2026-11-23", "12:00", "12:30")
		tuesday, _ := book(acmeKey, white, ruiz, visit, "2026-11-24", "09:00", "09:30")
		roomOf := func(id int64) string {
			var name string
			if err := store.QueryRow(t.Context(), `SELECT r.name FROM appointments a JOIN resources r ON r.account_id = a.account_id AND r.id = a.resource_id WHERE a.id = ?`, id).Scan(&name); err != nil {
				t.Fatalf("appointment %d holds no room: %v", id, err)
			}
			return name
		}
		rooms := map[int64]string{first: roomOf(first), second: roomOf(second), tuesday: roomOf(tuesday)}
		if rooms[first] == rooms[second] {
			t.Fatalf("both in %s", rooms[first])
		}
		// Another account's appointment in its own room, the same day.
		o := h.other()
		otherAppt, _ := book(otherKey, o.Services["cleaning"], o.Professionals["jones"], o.EventTypes["visit"], "2026-11-23", "11:00", "11:30")

		// The view by professional is as it was, with the toggle.
		p := ana.get("/app/today").must(t, http.StatusOK).contains(t, `<strong aria-current="true">By professional</strong>`,
			`href="/app/today?by=room"`, "data-move")
		if strings.Contains(p.Body, "Box 1") || strings.Contains(p.Body, "No room") {
			t.Error("rooms in the view by professional")
		}

		for _, who := range []struct{ email, pw string }{{"ana@acme.test", "ana-password"}, {"sara@acme.test", "sara-password"}} {
			u := h.signedIn(who.email, who.pw)
			p := u.get("/app/today?by=room").must(t, http.StatusOK).contains(t, `<strong aria-current="true">By room</strong>`,
				`aria-label="Appointments grid by room"`, `<input type="hidden" name="by" value="room">`,
				"/app/today?by=room&amp;date=2026-11-24", "Maintenance",
				"0 done or no-show. 1 appointment needs no room or equipment: it is shown by professional.")
			// Rooms by name, then the equipment, then "No room".
			b1, _ := p.gridHead("Box 1")
			b2, _ := p.gridHead("Box 2")
			laser, _ := p.gridHead("Laser")
			nr, _ := p.gridHead("No room")
			if !(b1 > 0 && b1 < b2 && b2 < laser && laser < nr) {
				t.Fatalf("%s: columns Box 1 %d, Box 2 %d, Laser %d, No room %d", who.email, b1, b2, laser, nr)
			}
			for id, name := range map[int64]string{first: rooms[first], second: rooms[second], none: "No room"} {
				start, span := p.gridHead(name)
				if c := p.gridCol("appt-" + itoa(id)); c < start || c >= start+span {
					t.Errorf("%s: appointment %d in grid column %d, not in %s (%d+%d)", who.email, id, c, name, start, span)
				}
			}
			p.contains(t, "with Dr. López", "with Dra. Ruiz")
			if strings.Contains(p.item("appt-"+itoa(first)), "data-move") {
				t.Error("drag to move by room")
			}
			// Box 2's maintenance, 16:00-17:00: rows from 08:00 (Ruiz's
			// start, the union of the hours) at 12 a hour.
			if !strings.Contains(p.Body, `<div class="tg-off" style="grid-row: 98 / 110; grid-column: `+itoa(int64(b2))+` / span 1">`) {
				t.Errorf("%s: no maintenance on Box 2 (column %d)", who.email, b2)
			}
			for _, s := range []string{"appt-" + itoa(plain), "appt-" + itoa(otherAppt), "Other Box", "tg-free", "tg-hold"} {
				if strings.Contains(p.Body, s) {
					t.Errorf("%s by room shows %q", who.email, s)
				}
			}
		}
		// In Spanish.
		eva := h.signedIn("eva@acme.test", "eva-password")
		eva.get("/app/today?by=room").must(t, http.StatusOK).contains(t, "Por sala", "Sin sala", "Mantenimiento", "con Dra. Ruiz", "Sala",
			"1 cita no necesita sala ni equipo")
		// Tuesday needs no "No room"; the toggle goes back to the view by
		// professional of the same day.
		p = ana.get("/app/today?date=2026-11-24&by=room").must(t, http.StatusOK).contains(t, "appt-"+itoa(tuesday), `href="/app/today?date=2026-11-24"`)
		if strings.Contains(p.Body, "No room") {
			t.Error(`a "No room" column on a day without one`)
		}
		// A retired room keeps its appointment, after the active ones.
		store.Exec(t.Context(), `UPDATE resources SET active = ? WHERE name = ?`, false, rooms[tuesday])
		p = ana.get("/app/today?date=2026-11-24&by=room").must(t, http.StatusOK).contains(t, "retired")
		start, span := p.gridHead(rooms[tuesday])
		if laser, _ := p.gridHead("Laser"); start <= laser {
			t.Errorf("retired %s at %d, Laser at %d", rooms[tuesday], start, laser)
		}
		if c := p.gridCol("appt-" + itoa(tuesday)); c < start || c >= start+span {
			t.Errorf("the retired room's appointment in column %d", c)
		}
		// The week is one professional's: no toggle.
		if p := ana.get("/app/today?view=week&by=room").must(t, http.StatusOK); strings.Contains(p.Body, "By room") {
			t.Error("the toggle on the week view")
		}
		// Another account sees its own rooms only.
		bob := h.signedIn("bob@other.test", "bob-password")
		p = bob.get("/app/today?date=2026-11-23&by=room").must(t, http.StatusOK).contains(t, "Other Box", "appt-"+itoa(otherAppt))
		for _, s := range []string{"Box 1", "Laser", "appt-" + itoa(first), "appt-" + itoa(none)} {
			if strings.Contains(p.Body, s) {
				t.Errorf("another account sees %q", s)
			}
		}
	})
}
