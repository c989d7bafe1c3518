package dashboard_test

import (
	"math"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/frontdesk/frontdesk/internal/db"
)

// TestBrowserCheckInFlow runs the front desk's morning on Today: the grid's
// heights follow time and the now line is drawn; a patient is checked in
// (arrived) then marked completed; a pending patient, called, is marked
// "confirmed by phone" from the list to call — on both engines, at desktop
// and phone width, with a screenshot and the accessibility audit at each
// step.
func TestBrowserCheckInFlow(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		acct := b.h.account("acme").ID
		for _, table := range []string{"appointments", "waitlist_entries"} {
			if _, err := b.h.store.Exec(b.t.Context(), "DELETE FROM "+table+" WHERE account_id = ?", acct); err != nil {
				b.t.Fatal(err)
			}
		}
		// Monday 23 Nov, 10:00 in Madrid: María's 09:30 visit has started;
		// Pedro's hour at 11:00 is not confirmed yet.
		started := b.h.addAppointment("acme", a.Clients["maria"], svc, pro, visit, at("2026-11-23", "09:30"), "confirmed")
		hour := b.h.addAppointment("acme", a.Clients["pedro"], svc, pro, visit, at("2026-11-23", "11:00"), "pending")
		if _, err := b.h.store.Exec(b.t.Context(), `UPDATE appointments SET end_at = ? WHERE id = ?`, db.Micros(at("2026-11-23", "12:00")), hour); err != nil {
			b.t.Fatal(err)
		}

		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/today", ".tg")
		short := eval[float64](b, `document.getElementById("appt-`+itoa(started)+`").getBoundingClientRect().height`)
		long := eval[float64](b, `document.getElementById("appt-`+itoa(hour)+`").getBoundingClientRect().height`)
		if math.Abs(long-2*short) > 4 {
			b.t.Errorf("an hour is %.0fpx high, half an hour %.0fpx", long, short)
		}
		if !eval[bool](b, `!!document.getElementById("tg-now")`) {
			b.t.Error("no now line today")
		}
		if got := b.text(".today-calls"); !strings.Contains(got, "1 confirmed") || !strings.Contains(got, "1 pending") || !strings.Contains(got, "Pedro") {
			b.t.Errorf("the tally: %q", got)
		}
		b.shot("c01-today")

		id := "#appt-" + itoa(started)
		b.submit("check in", id+" .st-badge-arrived",
			chromedp.Click(chromedp.CSS(id+" summary")),
			chromedp.Click(chromedp.CSS(id+` button[value=arrived]`)))
		if got := b.text(".flash.ok"); !strings.Contains(got, "has arrived") {
			b.t.Fatalf("after check-in: %q", got)
		}
		b.shot("c02-arrived")

		b.submit("mark completed", id+" .st-badge-completed",
			chromedp.Click(chromedp.CSS(id+" summary")),
			chromedp.Click(chromedp.CSS(id+` button[value=completed]`)))
		if got := b.text(".flash.ok"); !strings.Contains(got, "marked completed") {
			b.t.Fatalf("after completed: %q", got)
		}
		b.shot("c03-completed")

		call := "#call-" + itoa(hour)
		b.submit("confirmed by phone", ".flash.ok", chromedp.Click(chromedp.CSS(call+" button")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "Confirmed by phone") {
			b.t.Fatalf("after the call: %q", got)
		}
		if got := b.text(".today-calls"); !strings.Contains(got, "2 confirmed") || strings.Contains(got, "To call") {
			b.t.Errorf("the tally after the call: %q", got)
		}
		if !eval[bool](b, `document.getElementById("appt-`+itoa(hour)+`").classList.contains("conf-confirmed")`) {
			b.t.Error("the grid does not show the confirmation")
		}
		b.shot("c04-confirmed-by-phone")

		// Drag Pedro's hour onto the working time an hour after it starts:
		// the drop opens the reschedule page's confirm step for that start
		// (the synthetic drag events are the ones a mouse drag fires).
		want := eval[string](b, `(function () {
			var appt = document.getElementById("appt-`+itoa(hour)+`"), work = document.querySelector(".tg-work");
			work.scrollIntoView({block: "start", inline: "center"});
			var box = work.getBoundingClientRect(), rows = +work.dataset.rowEnd - +work.dataset.row, rowPx = box.height / rows;
			var x = box.left + box.width / 2, y = box.top + rowPx * 12 + 1, dt = new DataTransfer();
			var a = appt.getBoundingClientRect();
			appt.dispatchEvent(new DragEvent("dragstart", {bubbles: true, dataTransfer: dt, clientX: a.left + 2, clientY: a.top}));
			var grid = document.querySelector(".tg"), first = +grid.dataset.first;
			var minute = first + (+work.dataset.row - 2 + 12) * 5;
			var hh = String(Math.floor(minute / 60)).padStart(2, "0"), mm = String(minute % 60).padStart(2, "0");
			setTimeout(function () {
				grid.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt, clientX: x, clientY: y}));
				grid.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt, clientX: x, clientY: y}));
			}, 50);
			return work.dataset.day + "T" + hh + ":" + mm;
		})()`)
		b.run("the drop opens the confirm step", chromedp.WaitVisible(chromedp.CSS(".confirm-move")))
		if got := eval[string](b, `decodeURIComponent(location.search)`); !strings.Contains(got, "start="+want) || !strings.Contains(got, "/reschedule") && !strings.Contains(eval[string](b, `location.pathname`), "/reschedule") {
			b.t.Errorf("the drop went to %q, want start=%s on the reschedule page", got, want)
		}
		b.shot("c05-dragged-to-confirm")
	})
}
