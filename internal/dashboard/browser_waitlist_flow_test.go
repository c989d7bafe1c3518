package dashboard_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserFreedSlotOffer offers a freed time to the waiting list by
// hand and books it on the patient's behalf: the offer page lists the
// waiting patients the time suits, one is offered the seat, and the held
// offer is accepted from the waiting lists; "Book now" lists an entry's
// free times — on both engines, at desktop and phone width, with a
// screenshot and the accessibility audit at each step.
func TestBrowserFreedSlotOffer(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		// The engine's store is shared by the desktop and phone runs.
		acct := b.h.account("acme").ID
		for _, table := range []string{"appointments", "waitlist_entries"} {
			if _, err := b.h.store.Exec(b.t.Context(), "DELETE FROM "+table+" WHERE account_id = ?", acct); err != nil {
				b.t.Fatal(err)
			}
		}
		first := b.h.addWaiting("+34611000001", "Primera", 1)
		second := b.h.addWaiting("+34611000002", "Segunda", 2)
		eleven := at("2026-11-23", "11:00")
		q := url.Values{"professional_id": {itoa(a.Professionals["lopez"])}, "start": {eleven.UTC().Format(time.RFC3339)}}

		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/waitlists/offer?"+q.Encode(), "#offer-next")
		if got := b.text("#matches ~ .scroll, .scroll"); !strings.Contains(got, "Primera") || !strings.Contains(got, "Segunda") {
			b.t.Fatalf("the matches: %q", got)
		}
		b.shot("w01-offer-page")

		b.submit("offer to Segunda", ".flash.ok", chromedp.Click(chromedp.CSS("#match-"+itoa(second)+" button")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "Offered Mon 23 Nov, 11:00 to Segunda") {
			b.t.Fatalf("after offering: %q", got)
		}
		b.shot("w02-held")

		b.submit("accept for Segunda", ".flash.ok", chromedp.Click(chromedp.CSS("#entry-"+itoa(second)+` form[action$="/accept"] button`)))
		if got := b.text(".flash.ok"); !strings.Contains(got, "Booked Segunda") {
			b.t.Fatalf("after accepting: %q", got)
		}
		if n := b.h.count("appointments", "account_id = ? AND source = 'waitlist' AND status = 'booked'", acct); n != 1 {
			b.t.Fatalf("%d waiting-list appointments", n)
		}
		b.shot("w03-booked")

		b.visit("/app/waitlists/entries/"+itoa(first)+"/book", "#free-times")
		b.shot("w04-book-now")
	})
}
