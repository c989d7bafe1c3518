package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserPhoneCall runs a patient's phone call: the receptionist types
// part of the name in the header's search, picks the patient from the
// type-ahead with the arrow keys and Enter, opens the patient's page,
// moves their next appointment through the reschedule page to another
// slot and confirms, landing back on the patient's page — on both
// engines, at desktop and phone width, with a screenshot and the
// accessibility audit at each step.
func TestBrowserPhoneCall(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		maria := a.Clients["maria"]
		// The engine's store is shared by the desktop and phone runs.
		if _, err := b.h.store.Exec(b.t.Context(), "DELETE FROM appointments WHERE account_id = ?", b.h.account("acme").ID); err != nil {
			b.t.Fatal(err)
		}
		next := b.h.addAppointment("acme", maria, svc, pro, visit, at("2026-11-24", "10:00"), "pending")

		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/today", ".tg")

		// Part of the name in the header: the type-ahead lists María.
		b.run("type in the header search",
			chromedp.SendKeys(chromedp.CSS("#header-q"), "garc"),
			chromedp.WaitVisible(chromedp.CSS(`#header-q-list [role=option]`)))
		if got := eval[string](b, `document.getElementById("header-q").getAttribute("aria-expanded")`); got != "true" {
			b.t.Fatalf("aria-expanded = %q with the list open", got)
		}
		if got := b.text("#header-q-list"); !strings.Contains(got, "María García") || !strings.Contains(got, "+34600111222") {
			b.t.Fatalf("type-ahead: %q", got)
		}
		b.run("arrow down to María", chromedp.SendKeys(chromedp.CSS("#header-q"), kb.ArrowDown))
		if got := eval[string](b, `document.getElementById(document.getElementById("header-q").getAttribute("aria-activedescendant")).textContent`); !strings.Contains(got, "María García") {
			b.t.Fatalf("the active option: %q", got)
		}
		b.shot("pc01-type-ahead")

		// Enter opens the patient's page.
		b.submit("Enter opens the patient", "#client-book", chromedp.SendKeys(chromedp.CSS("#header-q"), kb.Enter))
		if got := eval[string](b, `location.pathname`); got != "/app/clients/"+itoa(maria) {
			b.t.Fatalf("Enter went to %q", got)
		}
		row := "#appt-" + itoa(next)
		if got := b.text(row); !strings.Contains(got, "Tue 24 Nov 2026, 10:00") {
			b.t.Fatalf("the next appointment: %q", got)
		}
		b.shot("pc02-patient")

		// Move it: the reschedule page, a free slot, the confirm step.
		b.submit("open move", "ul.slots", chromedp.Click(chromedp.CSS(row+` a[href*="/reschedule"]`)))
		b.shot("pc03-reschedule")
		slot := `ul.slots a[href*="start=2026-11-24T12%3A00"]`
		b.submit("pick 12:00", ".confirm-move", chromedp.Click(chromedp.CSS(slot)))
		b.shot("pc04-confirm")
		b.submit("confirm the move", ".flash.ok", chromedp.Click(chromedp.CSS(".confirm-move button")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "moved to Tue 24 Nov, 12:00") {
			b.t.Fatalf("after the move: %q", got)
		}
		if got := eval[string](b, `location.pathname`); got != "/app/clients/"+itoa(maria) {
			b.t.Fatalf("the move went back to %q", got)
		}
		if got := b.text(row); !strings.Contains(got, "Tue 24 Nov 2026, 12:00") {
			b.t.Fatalf("the moved appointment: %q", got)
		}
		b.shot("pc05-moved")
	})
}
