package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserSettingsTeam: an owner adds a webhook and invites a staff
// member; the link, opened signed out in a fresh browser context, creates
// the account; signed in as the new member, the settings are refused.
func TestBrowserSettingsTeam(t *testing.T) {
	browserFlow(t, func(b *browser) {
		b.signIn("ana@acme.test", "ana-password")
		b.visit("/app/settings", "main h1")
		b.shot("t01-settings")

		b.visit("/app/settings/webhooks", "#hook-url")
		b.run("add a webhook",
			chromedp.SendKeys(chromedp.CSS("#hook-url"), "https://crm.example.test/frontdesk"),
			chromedp.Click(chromedp.CSS("#ev-0")),
			chromedp.Click(chromedp.CSS(`form.stack[action="/app/settings/webhooks"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#new-secret")))
		if secret := eval[string](b, `document.querySelector("#new-secret").value`); !strings.HasPrefix(secret, "whsec_") {
			b.t.Fatalf("secret shown: %q", secret)
		}
		if !strings.Contains(b.text("main table"), "crm.example.test") {
			b.t.Fatal("the new webhook is not listed")
		}
		b.shot("t02-webhook-created")

		// One store serves both widths: each run invites its own person.
		email := "nora-" + b.vp.name + "@acme.test"
		b.visit("/app/settings/team", "#inv-email")
		// Scroll the form into view, as a person would (the team table is above it).
		eval[bool](b, `(() => { document.querySelector('form[action="/app/settings/team/invitations"]').scrollIntoView(); return true })()`)
		b.run("invite a staff member",
			chromedp.SendKeys(chromedp.CSS("#inv-email"), email),
			chromedp.SendKeys(chromedp.CSS("#inv-name"), "Nora"),
			chromedp.Click(chromedp.CSS(`form[action="/app/settings/team/invitations"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS("#invite-link")))
		link := eval[string](b, `document.querySelector("#invite-link").value`)
		if !strings.Contains(link, "/app/invite/") {
			b.t.Fatalf("link %q", link)
		}
		b.shot("t03-invitation-link")
		// The other settings pages pass the same checks.
		for _, pg := range []struct{ name, path, sel string }{
			{"t03a-notifications", "/app/settings/notifications", "#reminders"},
			{"t03b-audit", "/app/settings/audit", "main table"},
			{"t03c-me", "/app/settings/me", "#language"},
			{"t03e-channels", "/app/settings/channels", "#new-ch-key"},
		} {
			b.visit(pg.path, pg.sel)
			b.shot(pg.name)
		}
		// A channel added and tested from the page (the log provider needs
		// no credentials, so no server key).
		b.visit("/app/settings/channels", "#new-ch-key")
		eval[bool](b, `(() => { document.querySelector("#new-ch-key").scrollIntoView(); return true })()`)
		b.run("add a log channel",
			chromedp.SendKeys(chromedp.CSS("#new-ch-key"), "dev-"+b.vp.name),
			chromedp.SetValue(chromedp.CSS("#new-ch-type"), "log"),
			chromedp.SetValue(chromedp.CSS("#new-ch-provider"), "log"),
			chromedp.Click(chromedp.CSS(`form[action="/app/settings/channels"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/app/settings/channels/dev-`+b.vp.name+`/test"]`)))
		testForm := `form[action="/app/settings/channels/dev-` + b.vp.name + `/test"]`
		// The "saved" message goes, so the next one seen is the test's.
		eval[bool](b, `(() => { document.querySelector(".flash").remove(); document.querySelector('`+testForm+` input[name=to]').scrollIntoView(); return true })()`)
		b.run("send a test message",
			chromedp.SendKeys(chromedp.CSS(testForm+" input[name=to]"), "+34600111222"),
			chromedp.Click(chromedp.CSS(testForm+" button[type=submit]")),
			chromedp.WaitVisible(chromedp.CSS(".flash.ok")))
		if msg := b.text(".flash.ok"); !strings.Contains(msg, "Test message sent") {
			b.t.Fatalf("test message: %q", msg)
		}
		b.shot("t03f-channel-tested")
		b.visit("/app/settings/webhooks", "main table")
		b.run("open a webhook's deliveries", chromedp.Click(chromedp.CSS(`main table td a`)), chromedp.WaitVisible(chromedp.CSS("dl.facts")))
		b.shot("t03d-webhook-deliveries")

		// A fresh browser context: no cookies of Ana's.
		ownerCtx := b.ctx
		fresh, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
		defer cancel()
		b.ctx = fresh
		defer func() { b.ctx = ownerCtx }()
		b.run("viewport", chromedp.EmulateViewport(int64(b.vp.width), int64(b.vp.height)))
		b.run("open the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS("#invite-password")))
		if n := eval[int](b, `document.querySelectorAll('form[action="/app/logout"]').length`); n != 0 {
			b.t.Fatal("the fresh context is signed in")
		}
		b.shot("t04-invitation-form")
		b.run("accept",
			chromedp.SetValue(chromedp.CSS("#invite-name"), "Nora Nueva"),
			chromedp.SendKeys(chromedp.CSS("#invite-password"), "nora-password"),
			chromedp.Click(chromedp.CSS(`form[action^="/app/invite/"] button[type=submit]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/app/logout"]`)))
		if !strings.Contains(b.text(".who"), "Nora Nueva") {
			b.t.Fatal("not signed in as the new member")
		}
		b.shot("t05-joined")

		// Sign out, sign in with the chosen password: staff, no settings.
		b.run("sign out", chromedp.Click(chromedp.CSS(`form[action="/app/logout"] button`)), chromedp.WaitVisible(chromedp.CSS("#email")))
		b.signIn(email, "nora-password")
		if n := eval[int](b, `document.querySelectorAll('header a[href="/app/settings"]').length`); n != 0 {
			b.t.Fatal("staff see the Settings entry")
		}
		b.visit("/app/settings", "main h1")
		// Nora follows the account's language, Spanish.
		if !strings.Contains(b.text("main"), "Solo los propietarios") {
			b.t.Fatalf("settings not refused: %s", b.text("main"))
		}
		b.shot("t06-settings-refused")
	})
}
