package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserRooms: as the owner, add a room on Settings › Rooms and
// equipment, then retire it. Both engines, desktop and phone; every step
// screenshotted and audited.
func TestBrowserRooms(t *testing.T) {
	browserFlow(t, func(b *browser) {
		name := "Box 1"
		if b.phone() {
			name = "Box 2"
		}
		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/settings/resources", "#res-name")
		b.shot("r01-rooms")
		b.submit("add a room", ".flash.ok",
			chromedp.SendKeys(chromedp.CSS("#res-name"), name),
			chromedp.Click(chromedp.CSS(`form[action="/app/settings/resources"] button[type=submit]`)))
		b.shot("r02-room-added")
		var id int64
		if err := b.h.store.QueryRow(b.ctx, `SELECT id FROM resources WHERE name = ? AND kind = 'room' AND active`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		b.submit("retire it", ".flash.ok",
			chromedp.Click(chromedp.CSS("#res-active-"+itoa(id))),
			chromedp.Click(chromedp.CSS(`form[action="/app/settings/resources/`+itoa(id)+`"] button[type=submit]`)))
		b.shot("r03-room-retired")
		var active bool
		b.h.store.QueryRow(b.ctx, `SELECT active FROM resources WHERE id = ?`, id).Scan(&active)
		if active {
			t.Error("the room is still active")
		}
	})
}

// TestBrowserRoomsToday: Today by room (docs/today.md, "By room"): with
// two rooms, a laser and three appointments at 11:00 for two rooms, the
// toggle lays the day out by room, with the third appointment under "No
// room"; and back by professional. Both engines, desktop and phone;
// screenshotted and audited.
func TestBrowserRoomsToday(t *testing.T) {
	browserFlow(t, func(b *browser) {
		b.h.applyYAML(roomsYAML)
		a := b.h.acme()
		// The engine's store is shared by the desktop and phone runs.
		if _, err := b.h.store.Exec(b.ctx, `DELETE FROM appointments WHERE account_id = ?`, b.h.account("acme").ID); err != nil {
			t.Fatal(err)
		}
		for _, pro := range []int64{a.Professionals["lopez"], a.Professionals["ruiz"], a.Professionals["lopez"]} {
			if status, body := b.h.api("POST", "/api/v2/public/calendar/events", acmeKey, map[string]any{
				"client": map[string]any{"first_name": "Lola", "phone": "+34600555666"}, "service_id": a.Services["whitening"],
				"professional_id": pro, "event_type_id": a.EventTypes["visit"],
				"start_at": "2026-11-23T11:00:00", "end_at": "2026-11-23T11:30:00", "timezone": "Europe/Madrid"}); status != 200 {
				t.Fatalf("book: %d %v", status, body)
			}
		}
		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/today", ".tg")
		b.submit("by room", ".tg-kind", chromedp.Click(chromedp.CSS(`.today-by a`)))
		heads := eval[[]string](b, `Array.from(document.querySelectorAll(".tg-head")).map(h => h.textContent.trim().replace(/\s+/g, " "))`)
		if want := []string{"Box 1 Room", "Box 2 Room", "Laser Equipment", "No room"}; strings.Join(heads, "|") != strings.Join(want, "|") {
			t.Fatalf("columns %q, want %q", heads, want)
		}
		if n := eval[int](b, `document.querySelectorAll(".tg-appt").length`); n != 3 {
			t.Fatalf("%d appointments by room", n)
		}
		b.shot("r04-today-by-room")
		b.submit("by professional", ".tg-free", chromedp.Click(chromedp.CSS(`.today-by a`)))
		if got := b.text(".today-by strong"); got != "By professional" {
			t.Fatalf("back: %q", got)
		}
	})
}
