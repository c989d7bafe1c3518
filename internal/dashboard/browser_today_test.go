package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserToday runs a receptionist's day on the Today grid: open it,
// book a free slot for a new client, see the appointment on the grid, mark
// a past appointment no-show, reschedule one by picking a free slot, and
// look at the week — on both engines, at desktop and phone width, with a
// screenshot and the accessibility audit at each step.
func TestBrowserToday(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		pro, svc, visit := a.Professionals["lopez"], a.Services["cleaning"], a.EventTypes["visit"]
		// The engine's store is shared by the desktop and phone runs: start
		// from an empty day.
		acct := b.h.account("acme").ID
		for _, table := range []string{"appointments", "waitlist_entries"} {
			if _, err := b.h.store.Exec(b.t.Context(), "DELETE FROM "+table+" WHERE account_id = ?", acct); err != nil {
				b.t.Fatal(err)
			}
		}
		// Monday 23 Nov, 10:00 in Madrid: one appointment is over, one to come.
		past := b.h.addAppointment("acme", a.Clients["maria"], svc, pro, visit, at("2026-11-23", "09:00"), "confirmed")
		later := b.h.addAppointment("acme", a.Clients["pedro"], svc, pro, visit, at("2026-11-23", "12:00"), "declined")
		b.h.addHeldEntry("acme", a.Waitlists["main"], a.Clients["maria"], svc, pro, at("2026-11-23", "15:00"), testNow.Add(2*3600e9))

		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/", ".tg")
		b.shot("t01-today")

		// A free slot opens the booking form; a new client is created.
		slot := `.tg-free a[href*="start=2026-11-23T10%3A30%3A00Z"]`
		b.run("open the 11:30 slot", chromedp.Click(chromedp.CSS(slot)), chromedp.WaitVisible(chromedp.CSS("#phone")))
		b.shot("t02-book-form")
		b.run("book for a new client",
			chromedp.SendKeys(chromedp.CSS("#phone"), "611 222 333"),
			chromedp.SendKeys(chromedp.CSS("#first_name"), "Nuria"),
			chromedp.SendKeys(chromedp.CSS("#last_name"), "Vega"),
			chromedp.Click(chromedp.CSS(`.book-form button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(".flash.ok")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "Booked Nuria Vega") {
			b.t.Fatalf("after booking: %q", got)
		}
		if got := b.text(`.tg-appt[class*="conf-pending"]`); !strings.Contains(got, "Nuria Vega") || !strings.Contains(got, "11:30") {
			b.t.Fatalf("the new appointment on the grid: %q", got)
		}
		b.shot("t03-booked")

		// The appointment that is over is marked no-show.
		id := "#appt-" + itoa(past)
		b.run("mark no-show",
			chromedp.Click(chromedp.CSS(id+" summary")),
			chromedp.Click(chromedp.CSS(id+` button[value=no_show]`)),
			chromedp.WaitVisible(chromedp.CSS(id+" .st-badge-no_show")))
		if got := b.text(id); !strings.Contains(got, "no-show") {
			b.t.Fatalf("after no-show: %q", got)
		}
		b.shot("t04-no-show")

		// The 12:00 appointment moves to a free slot picked from the list.
		id = "#appt-" + itoa(later)
		b.run("open reschedule",
			chromedp.Click(chromedp.CSS(id+" summary")),
			chromedp.Click(chromedp.CSS(id+` a[href$="/reschedule"]`)),
			chromedp.WaitVisible(chromedp.CSS("ul.slots")))
		b.shot("t05-reschedule")
		b.run("pick Tuesday 09:00",
			chromedp.Click(chromedp.CSS(`a[href*="date=2026-11-24"]`)),
			chromedp.WaitVisible(chromedp.CSS(`a[href*="start=2026-11-24T09%3A00"]`)),
			chromedp.Click(chromedp.CSS(`a[href*="start=2026-11-24T09%3A00"]`)),
			chromedp.WaitVisible(chromedp.CSS(".confirm-move")),
			chromedp.Click(chromedp.CSS(".confirm-move button")),
			chromedp.WaitVisible(chromedp.CSS(".flash.ok")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "moved to Tue 24 Nov, 09:00") {
			b.t.Fatalf("after reschedule: %q", got)
		}
		if got := b.text(id); !strings.Contains(got, "09:00") || !strings.Contains(got, "Pedro") {
			b.t.Fatalf("the moved appointment: %q", got)
		}
		b.shot("t06-rescheduled")

		// The week, one professional's, a column per day.
		b.visit("/app/today?view=week&date=2026-11-23", ".tg")
		if got := b.text(".tg"); !strings.Contains(got, "Sun 29 Nov") || !strings.Contains(got, "Nuria Vega") {
			b.t.Fatalf("week: %q", got)
		}
		b.shot("t07-week")
	})
}
