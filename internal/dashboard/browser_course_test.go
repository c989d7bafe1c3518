package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserCourse: the receptionist books a five-session course from a
// free time on Today (the sessions and the week that clashes shown first),
// moves one session on the patient's page, then cancels the rest ("this
// and the following") — on both engines, at desktop and phone width, every
// step screenshotted and audited.
func TestBrowserCourse(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		if _, err := b.h.store.Exec(b.t.Context(), "DELETE FROM appointments WHERE account_id = ?", b.h.account("acme").ID); err != nil {
			b.t.Fatal(err)
		}
		// The course's third week is taken.
		b.h.addAppointment("acme", a.Clients["pedro"], svc, pro, visit, at("2026-12-07", "16:30"), "confirmed")

		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/today?date=2026-11-23&service="+itoa(svc), ".tg")
		b.submit("book 16:30", "#phone", chromedp.Click(chromedp.CSS(`.tg-starts a[href*="start=2026-11-23T15%3A30"]`)))
		b.submit("check the course", "#course-check",
			chromedp.SendKeys(chromedp.CSS("#phone"), "611 222 333"),
			chromedp.SendKeys(chromedp.CSS("#first_name"), "Nuria"),
			chromedp.SetValue(chromedp.CSS("#repeat"), "1"),
			chromedp.SendKeys(chromedp.CSS("#sessions"), "5"),
			chromedp.Click(chromedp.CSS(".book-form > button[type=submit]")))
		if got := b.text(".course-check"); !strings.Contains(got, "Sessions with a conflict: 1.") || strings.Count(got, "free") != 4 ||
			!strings.Contains(got, "Monday, 7 December, 16:30 It overlaps another appointment of Dr. López") {
			b.t.Fatalf("the course's check: %q", got)
		}
		if n := b.h.count("appointments", "client_id IN (SELECT id FROM clients WHERE phone_national = '611222333')"); n != 0 {
			b.t.Fatalf("the check booked %d sessions", n)
		}
		b.shot("co01-course-check")
		b.submit("book the 5 sessions", ".flash.warn", chromedp.Click(chromedp.CSS("#book-course")))
		if got := b.text(".flash.warn"); !strings.Contains(got, "Booked a course of 5 sessions for Nuria") {
			b.t.Fatalf("after booking: %q", got)
		}
		b.shot("co02-course-booked")
		var client int64
		if err := b.h.store.QueryRow(b.ctx, `SELECT id FROM clients WHERE phone_national = '611222333'`).Scan(&client); err != nil {
			b.t.Fatal(err)
		}
		sessions := b.h.count("appointments", "client_id = ? AND status = 'booked' AND series_id IS NOT NULL", client)
		if sessions != 5 {
			b.t.Fatalf("%d sessions booked", sessions)
		}

		// Move the second session (30 Nov) to 17:00 that day, only that one.
		var second int64
		if err := b.h.store.QueryRow(b.ctx, `SELECT id FROM appointments WHERE client_id = ? ORDER BY start_at LIMIT 1 OFFSET 1`, client).Scan(&second); err != nil {
			b.t.Fatal(err)
		}
		b.visit("/app/clients/"+itoa(client), "#appt-"+itoa(second))
		row := "#appt-" + itoa(second)
		b.submit("open move", "ul.slots", chromedp.Click(chromedp.CSS(row+` a[href*="/reschedule"]`)))
		b.submit("pick 17:00", ".confirm-move", chromedp.Click(chromedp.CSS(`ul.slots a[href*="start=2026-11-30T17%3A00"]`)))
		if !eval[bool](b, `document.getElementById("pick-scope-one").checked`) {
			b.t.Fatal("moving one session is not the default")
		}
		b.shot("co03-move-one")
		b.submit("confirm the move", ".flash.ok", chromedp.Click(chromedp.CSS(".confirm-move button")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "moved to Mon 30 Nov, 17:00") {
			b.t.Fatalf("after the move: %q", got)
		}
		if got := b.text(row); !strings.Contains(got, "17:00") {
			b.t.Fatalf("the moved session: %q", got)
		}

		// Cancel the rest: the third session and the following.
		var third int64
		if err := b.h.store.QueryRow(b.ctx, `SELECT id FROM appointments WHERE client_id = ? ORDER BY start_at LIMIT 1 OFFSET 2`, client).Scan(&third); err != nil {
			b.t.Fatal(err)
		}
		b.submit("cancel this and the following", ".flash.ok",
			func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
				_, err := chromedp.Evaluate[any]("window.confirm = function () { return true }")(ctx, tg)
				return chromedp.Void{}, err
			},
			chromedp.Click(chromedp.CSS("#appt-"+itoa(third)+` input[value=following] ~ button`)))
		if got := b.text(".flash.ok"); !strings.Contains(got, "Cancelled 3 sessions of the course") {
			b.t.Fatalf("after cancelling: %q", got)
		}
		b.shot("co04-rest-cancelled")
		if n := b.h.count("appointments", "client_id = ? AND status = 'booked'", client); n != 2 {
			b.t.Errorf("%d sessions still booked, want 2", n)
		}
	})
}
