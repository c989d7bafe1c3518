package dashboard_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserInbox runs a receptionist's round of the inbox on both engines
// at desktop and phone width: a message from a number no client holds
// shows as new and unread, opening it reads it, she takes it, sets it to
// team handling and answers; the answer is in the transcript and queued
// for the sender's channel. (A patient's thread: browser_inbox_patient_test.go.)
func TestBrowserInbox(t *testing.T) {
	browserFlow(t, func(b *browser) {
		b.h.applyChannels()
		// Each width runs on the same store: each has its own sender, so
		// the phone run does not meet the desktop run's conversation.
		e164, national, name := strangerE164, strangerNational, strangerE164
		if b.phone() {
			e164, national, name = "+34600999777", "600999777", "+34600999777"
		}
		conv := b.h.inbound("sms", e164, national, "Hola, ¿puedo cambiar mi cita del jueves?")
		b.signIn("ana@acme.test", "ana-password")

		b.visit("/app/conversations", "tr.unread")
		if got := b.text("tr.unread .badge.unread"); got != "New" {
			t.Fatalf("badge %q", got)
		}
		if h1 := b.text("main h1"); !strings.Contains(h1, "1 unread") {
			t.Fatalf("heading %q", h1)
		}
		if row := b.text("tr.unread td"); !strings.Contains(row, name) {
			t.Fatalf("unread row %q, want %s", row, name)
		}
		b.shot("inbox-01-unread")

		b.run("open the conversation",
			chromedp.Click(chromedp.CSS(`tr.unread a[href="/app/conversations/`+itoa(conv)+`"]`)),
			chromedp.WaitVisible(chromedp.CSS("#reply-body")))
		if n := b.h.unread(); n != 0 {
			t.Fatalf("still %d unread after opening", n)
		}
		b.shot("inbox-02-opened")

		b.run("assign it to me",
			chromedp.Click(chromedp.CSS("#assign-me")),
			chromedp.WaitNotPresent(chromedp.CSS("#assign-me")),
			chromedp.WaitVisible(chromedp.CSS(".flash.ok")))
		if got := b.text("#conv-assignee"); got != "Ana Ruiz" {
			t.Fatalf("assignee %q", got)
		}
		b.shot("inbox-03-assigned")

		b.run("set team handling",
			chromedp.SetValue(chromedp.CSS("#set-status"), "human_handling"),
			chromedp.Click(chromedp.CSS(`form[action$="/status"] button[type=submit]`)),
			chromedp.WaitReady(chromedp.CSS(`#set-status option[value="human_handling"][selected]`)))
		if got := b.text("#conv-status"); got != "Team handling" {
			t.Fatalf("status %q", got)
		}
		b.shot("inbox-04-status")

		b.run("send a reply",
			chromedp.SendKeys(chromedp.CSS("#reply-body"), "Claro, ¿le viene bien el viernes a las 10:00?"),
			chromedp.Click(chromedp.CSS("#reply-send")),
			chromedp.WaitVisible(chromedp.CSS(".transcript li.msg.human")))
		if got := b.text(".transcript li.msg.human"); !strings.Contains(got, "viernes a las 10:00") || !strings.Contains(got, "Ana Ruiz") {
			t.Fatalf("transcript shows %q", got)
		}
		if n := b.h.count("outbox", "kind = 'team_reply' AND channel_key = 'sms' AND recipient = ?", e164); n != 1 {
			t.Fatalf("queued replies: %d", n)
		}
		b.shot("inbox-05-replied")

		b.visit("/app/conversations?show=mine", "table.inbox")
		b.shot("inbox-06-mine")
	})
}
