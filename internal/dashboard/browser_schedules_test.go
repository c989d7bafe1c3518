package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserScheduleConflicts: as the owner, give Dr. López a day off
// over a booked patient; the page after saving warns and lists the
// appointment with its "Move" and "Message the patient" links, and "Move"
// opens the appointment's reschedule page. Both engines, desktop and
// phone; every step screenshotted and audited.
func TestBrowserScheduleConflicts(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		lopez := a.Professionals["lopez"]
		// Both widths share one store: each run has its own day.
		day, phone := "2026-11-30", "+34611222555"
		if b.phone() {
			day, phone = "2026-12-01", "+34611222556"
		}
		id := bookFor(t, b.h.store, "acme", a.Services["cleaning"], lopez, a.EventTypes["visit"], day+"T10:00:00", phone, b.h.clock.Now())
		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/settings/professionals/"+itoa(lopez), "#off-day")
		b.submit("a day off over a booked patient", ".flash.warn",
			chromedp.SetValue(chromedp.CSS("#off-day"), day),
			chromedp.Click(chromedp.CSS(`form:has(#off-day) button[type=submit]`)))
		b.shot("sc01-conflicts")
		if txt := b.text("#conflicts-h + .hint + .scroll"); !strings.Contains(txt, "Rosa") || !strings.Contains(txt, "During time off") {
			t.Fatalf("conflicts table: %q", txt)
		}
		b.submit("move it", "main h1",
			chromedp.Click(chromedp.CSS(`a[href^="/app/appointments/`+itoa(id)+`/reschedule"]`)))
		b.shot("sc02-reschedule")
	})
}
