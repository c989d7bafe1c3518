package dashboard_test

import "testing"

// TestBrowserEveryPage opens every page of the dashboard, signed out and
// signed in, on both engines at desktop and phone width: each is
// screenshotted and passes the accessibility audit (browser.check).
func TestBrowserEveryPage(t *testing.T) {
	browserFlow(t, func(b *browser) {
		a := b.h.acme()
		b.visit("/app/login", "#email")
		b.shot("p00-sign-in")
		b.signIn("ana@acme.test", "ana-password")
		sales := a.Pipelines["sales"]
		for _, p := range []struct{ name, path, sel string }{
			{"p01-pipelines", "/app/pipelines", "main h1"},
			{"p02-board", "/app/pipelines/" + itoa(sales), "#board"},
			{"p03-card", "/app/pipelines/" + itoa(sales) + "/cards/" + itoa(cardOf(b.t, b.h.store, a.Clients["maria"], sales)), "main h1"},
			{"p04-clients", "/app/clients", "#q"},
			{"p05-client", "/app/clients/" + itoa(a.Clients["maria"]), "#email"},
			{"p06-calendar", "/app/calendar?date=2026-11-26", "main h1"},
			{"p07-waitlists", "/app/waitlists", "main h1"},
			{"p08-conversations", "/app/conversations", "#search"},
			{"p09-transcript", "/app/conversations/" + itoa(a.Conversations["c1"]), ".transcript"},
			{"p10-activity", "/app/activity", "#kind"},
			{"p11-channels", "/app/settings/channels", "main h1"},
			{"p12-keys", "/app/keys", "#key-name"},
		} {
			b.visit(p.path, p.sel)
			b.shot(p.name)
		}
	})
}
