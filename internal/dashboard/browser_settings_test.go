package dashboard_test

import (
	"strings"

	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSettingsCatalog: as the owner, create a service, have Dr.
// López offer it, give him working hours and then a day off, and check
// through the public API that the day's free slots go from some to none;
// as staff, the services settings are refused. Both engines, desktop and
// phone; every step screenshotted and audited.
func TestBrowserSettingsCatalog(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		// Both widths share one store (browserFlow): each run has its own
		// service and its own Wednesday.
		name, wed, shown := "Ortodoncia", "2026-11-25", "Wed 25 Nov 2026, 00:00"
		if b.phone() {
			name, wed, shown = "Ortodoncia infantil", "2026-12-02", "Wed 2 Dec 2026, 00:00"
		}
		lopez, visit := a.Professionals["lopez"], a.EventTypes["visit"]
		b.signIn("ana@acme.test", "ana-password")

		b.visit("/app/settings/services", "#svc-name")
		b.shot("s01-services")
		b.submit("create a service", "#pro-"+itoa(lopez),
			chromedp.SendKeys(chromedp.CSS("#svc-name"), name),
			chromedp.SetValue(chromedp.CSS("#svc-duration"), "60"),
			chromedp.Click(chromedp.CSS(`form[action="/app/settings/services"] button[type=submit]`)))
		b.shot("s02-service-created")
		b.submit("who offers it and how", ".flash.ok",
			chromedp.Click(chromedp.CSS("#pro-"+itoa(lopez))),
			chromedp.Click(chromedp.CSS("#et-"+itoa(visit))),
			chromedp.Click(chromedp.CSS(`form.settings-form button[type=submit]`)))
		b.shot("s03-service-saved")
		var id int64
		if err := b.h.store.QueryRow(b.ctx, `SELECT id FROM services WHERE name = ?`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}

		// On Wednesdays Dr. López now works 10:00-12:00: two one-hour slots.
		b.visit("/app/settings/professionals/"+itoa(lopez), "#hours-wed")
		b.submit("working hours", ".flash.ok",
			chromedp.SetValue(chromedp.CSS("#hours-wed"), "10:00-12:00"),
			chromedp.Click(chromedp.CSS(`form.hours button[type=submit]`)))
		b.shot("s04-working-hours")
		if got := eval[string](b, `document.querySelector("#hours-wed").value`); got != "10:00-12:00" {
			t.Fatalf("Wednesday's hours read %q", got)
		}
		if n := b.h.slotCount(id, wed); n != 2 {
			t.Fatalf("free slots on Wednesday = %d, want 2", n)
		}
		b.submit("a day off", ".flash.ok",
			chromedp.SetValue(chromedp.CSS("#off-day"), wed),
			chromedp.Click(chromedp.CSS(`form:has(#off-day) button[type=submit]`)))
		b.shot("s05-day-off")
		if txt := b.text("#off-h + .scroll"); !strings.Contains(txt, shown) {
			t.Fatalf("time off table: %q", txt)
		}
		if n := b.h.slotCount(id, wed); n != 0 {
			t.Fatalf("free slots on the day off = %d, want 0", n)
		}

		// The other catalogue pages, as the owner sees them.
		for _, p := range []struct{ name, path, sel string }{
			{"s06-professionals", "/app/settings/professionals", "#pro-name"},
			{"s07-event-types", "/app/settings/event-types", "#et-name"},
			{"s08-waitlist-schedules", "/app/settings/waitlists", "main h1"},
		} {
			b.visit(p.path, p.sel)
			b.shot(p.name)
		}
		b.run("a schedule",
			chromedp.SetValue(chromedp.CSS("#wl-every-"+itoa(a.Waitlists["main"])), "30"),
			chromedp.Click(chromedp.CSS(`form[action="/app/settings/waitlists/`+itoa(a.Waitlists["main"])+`"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(".flash.ok")))
		if got := eval[string](b, `document.querySelector("#wl-every-`+itoa(a.Waitlists["main"])+`").value`); got != "30" {
			t.Fatalf("run every reads %q after saving", got)
		}

		// Staff are refused.
		b.run("sign out",
			chromedp.Click(chromedp.CSS(`form[action="/app/logout"] button`)),
			chromedp.WaitVisible(chromedp.CSS("#email")))
		b.signIn("sara@acme.test", "sara-password")
		b.visit("/app/settings/services", "main h1")
		if txt := b.text("main"); !strings.Contains(txt, "Only the account's owners can change its settings.") {
			t.Fatalf("staff see: %q", txt)
		}
		b.shot("s09-staff-refused")
	})
}
