package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
)

// TestBrowserPatientThreadReply runs a receptionist's answer to a patient
// on both engines at desktop and phone width: the inbox lists the patient
// with a preview, her thread merges the SMS and WhatsApp messages beside
// her card, she picks a quick reply and sends and resolves in one click.
func TestBrowserPatientThreadReply(t *testing.T) {
	browserFlow(t, func(b *browser) {
		b.h.applyChannels()
		a := b.h.acme()
		// Each width runs on the same store: each has its own patient.
		e164, national, client, name := mariaE164, mariaNational, a.Clients["maria"], "María García"
		if b.phone() {
			e164, national, client, name = "+34600333444", "600333444", a.Clients["pedro"], "Pedro Sánchez"
		}
		quick := "Le esperamos el viernes a las 10:00."
		acct := b.h.account("acme")
		if err := b.h.store.Transact(b.t.Context(), func(tx *db.Tx) error {
			if n, err := chat.QuickReplies(b.t.Context(), tx, acct); err != nil || len(n) > 0 {
				return err
			}
			_, err := chat.AddQuickReply(b.t.Context(), tx, acct, quick, testNow)
			return err
		}); err != nil {
			b.t.Fatal(err)
		}
		b.h.inbound("sms", e164, national, "Hola, ¿tenéis hueco el viernes?")
		b.h.inbound("wa", e164, national, "Os escribo también por WhatsApp")
		b.signIn("ana@acme.test", "ana-password")

		b.visit("/app/conversations?show=new", "table.inbox")
		link := `a[href="` + patientPath(client) + `"]`
		if row := b.text("tr.unread td"); !strings.Contains(row, name) {
			b.t.Fatalf("new row %q, want %s", row, name)
		}
		if got := b.text("tr.unread td.preview"); !strings.Contains(got, "WhatsApp") {
			b.t.Fatalf("preview %q", got)
		}
		b.shot("inbox-patient-01-new")

		b.submit("open the patient's thread", "#reply-body", chromedp.Click(chromedp.CSS(link)))
		if got := b.text(".transcript"); !strings.Contains(got, "hueco el viernes") || !strings.Contains(got, "WhatsApp") {
			b.t.Fatalf("thread %q", got)
		}
		if got := b.text("#card-client"); got != name {
			b.t.Fatalf("card %q", got)
		}
		b.shot("inbox-patient-02-thread")

		// With JavaScript, choosing a quick reply inserts it at once.
		inserted := eval[string](b, `(() => {
  const sel = document.querySelector("#quick");
  sel.selectedIndex = 1;
  sel.dispatchEvent(new Event("change", {bubbles: true}));
  return document.querySelector("#reply-body").value;
})()`)
		if inserted != quick {
			b.t.Fatalf("the script inserted %q", inserted)
		}
		// Without it, the Insert button asks the server for a filled box.
		eval[string](b, `document.querySelector("#reply-body").value = ""`)
		// (Choosing by script fires no change event: the page's own script
		// stays out of it.)
		eval[int](b, `document.querySelector("#quick").selectedIndex = 1`)
		b.submit("pick a quick reply", "#reply-body", chromedp.Click(chromedp.CSS("#quick-insert")))
		if got := eval[string](b, `document.querySelector("#reply-body").value`); got != quick {
			b.t.Fatalf("reply box %q, want the quick reply", got)
		}
		b.shot("inbox-patient-03-quick-reply")

		b.submit("send and resolve", ".flash.ok", chromedp.Click(chromedp.CSS("#reply-send-resolve")))
		if got := b.text(".flash.ok"); !strings.Contains(got, "resolved") {
			b.t.Fatalf("flash %q", got)
		}
		if got := b.text("#conv-status"); got != "Resolved" {
			b.t.Fatalf("status %q", got)
		}
		if n := b.h.count("outbox", "kind = 'team_reply' AND recipient = ? AND body = ?", e164, quick); n != 1 {
			b.t.Fatalf("queued replies: %d", n)
		}
		if n := b.h.count("conversations", "phone_national = ? AND status NOT IN ('resolved', 'expired')", national); n != 0 {
			b.t.Fatalf("open conversations left: %d", n)
		}
		b.shot("inbox-patient-04-resolved")

		b.visit("/app/conversations?show=resolved", "table.inbox")
		b.shot("inbox-patient-05-resolved-list")
	})
}
