package dashboard_test

import (
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
