package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserClients: a receptionist creates a client, lands on the
// client's page, adds the client to a waiting list and sees the entry
// there; creating the same phone again shows who has it, with a link.
func TestBrowserClients(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		// Both widths run on one store: each creates its own phone.
		national := "600555777"
		if b.phone() {
			national = "600555778"
		}
		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/clients", `a[href="/app/clients/new"]`)
		b.shot("c01-clients")

		b.run("open the new client form",
			chromedp.Click(chromedp.CSS(`a[href="/app/clients/new"]`)),
			chromedp.WaitVisible(chromedp.CSS("#first_name")))
		b.shot("c02-new-client")
		b.run("create a client",
			chromedp.SendKeys(chromedp.CSS("#first_name"), "Lola"),
			chromedp.SendKeys(chromedp.CSS("#last_name"), "Pérez"),
			chromedp.SendKeys(chromedp.CSS("#phone"), national[:3]+" "+national[3:6]+" "+national[6:]),
			chromedp.SendKeys(chromedp.CSS("#email"), "lola-"+national+"@example.com"),
			chromedp.Click(chromedp.CSS(`main form[action="/app/clients"] button[type=submit]`)),
			// Success or refusal: either shows a message.
			chromedp.WaitVisible(chromedp.CSS(".flash")))
		if msg := b.text(".flash"); !strings.Contains(msg, "Client Lola Pérez created.") {
			b.t.Fatalf("flash = %q", msg)
		}
		if h1 := b.text("main h1"); h1 != "Lola Pérez" {
			b.t.Fatalf("h1 = %q", h1)
		}
		b.shot("c03-client-created")
		path := eval[string](b, `location.pathname`)

		b.run("add to the waiting list",
			chromedp.SetValue(chromedp.CSS("#waitlist_id"), itoa(a.Waitlists["main"])),
			chromedp.Click(chromedp.CSS("#service-"+itoa(a.Services["cleaning"]))),
			chromedp.SetValue(chromedp.CSS("#priority"), "1"),
			chromedp.SendKeys(chromedp.CSS("#wl-notes"), "mornings please"),
			chromedp.Click(chromedp.CSS(`form.waitlist-add button[type=submit]`)),
			// The page came back with the entry listed.
			chromedp.WaitVisible(chromedp.CSS("#waitlist table")))
		if msg := b.text(".flash"); !strings.Contains(msg, "Added to the waiting list for Limpieza dental.") {
			b.t.Fatalf("flash = %q", msg)
		}
		if row := b.text("#waitlist tbody tr"); !strings.Contains(row, "General") || !strings.Contains(row, "Limpieza dental") ||
			!strings.Contains(row, "waiting") || !strings.Contains(row, "mornings please") {
			b.t.Fatalf("entry row = %q", row)
		}
		b.shot("c04-on-waiting-list")
		if n := b.h.count("waitlist_entries", "client_id = (SELECT id FROM clients WHERE phone_national = ?) AND status = 'waiting'", national); n != 1 {
			b.t.Fatalf("entries = %d", n)
		}

		// The same phone again: refused, with a link to Lola.
		b.run("create the same phone again",
			chromedp.Navigate(b.base+"/app/clients/new"),
			chromedp.WaitVisible(chromedp.CSS("#first_name")),
			chromedp.SendKeys(chromedp.CSS("#first_name"), "Dolores"),
			chromedp.SendKeys(chromedp.CSS("#phone"), "+34"+national),
			chromedp.Click(chromedp.CSS(`main form[action="/app/clients"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(".flash.error a")))
		if msg := b.text(".flash.error"); !strings.Contains(msg, "already belongs to Lola Pérez") {
			b.t.Fatalf("refusal = %q", msg)
		}
		b.shot("c05-duplicate-phone")
		b.run("follow the link to the client",
			chromedp.Click(chromedp.CSS(".flash.error a")),
			chromedp.WaitVisible(chromedp.CSS("#waitlist")))
		if got := eval[string](b, `location.pathname`); got != path {
			b.t.Fatalf("link went to %q, want %q", got, path)
		}
	})
}
