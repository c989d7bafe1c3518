package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// channelMessage records a message crossing one of acme's channels now: a
// patient's (inbound) or one Frontdesk sent automatically (outbound).
func (h *harness) channelMessage(channelKey, e164, national, text string, inbound bool) int64 {
	h.t.Helper()
	ctx := context.Background()
	acct := h.account("acme")
	ch, err := channels.ByKeyWithoutCredentials(ctx, h.store, acct, channelKey)
	if err != nil {
		h.t.Fatal(err)
	}
	var conv int64
	err = h.store.Transact(ctx, func(tx *db.Tx) error {
		var err error
		conv, _, _, err = chat.RecordChannelMessage(ctx, tx, acct, chat.ChannelMessage{ChannelID: ch.ID, Phone: e164, PhoneNational: national,
			Inbound: inbound, Content: text, At: h.clock.Now()}, h.clock.Now())
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return conv
}

// patientPath is a client's thread.
func patientPath(clientID int64) string { return "/app/conversations/patient/" + itoa(clientID) }

// María writes on SMS and on WhatsApp: the inbox lists her once, with the
// last message's preview cut short and its time in Madrid; her thread
// merges both channels (and her imported conversation) in time order, beside
// her card; the old conversation address leads to the thread.
func TestPatientThreadMergesChannels(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		a := h.acme()
		maria := a.Clients["maria"]
		appt := h.addAppointment("acme", maria, a.Services["cleaning"], a.Professionals["lopez"], a.EventTypes["visit"], testNow.Add(48*time.Hour), "pending")
		sms := h.inbound("sms", mariaE164, mariaNational, "Hola, escribo por SMS")
		h.clock.Advance(time.Minute)
		long := "Y ahora por WhatsApp: " + strings.Repeat("quería preguntar por la limpieza ", 5) + "FIN"
		wa := h.inbound("wa", mariaE164, mariaNational, long)
		if sms == wa {
			t.Fatal("two channels met in one conversation")
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		list := u.get("/app/conversations").must(t, http.StatusOK)
		if n := strings.Count(list.Body, `href="`+patientPath(maria)+`"`); n != 1 {
			t.Fatalf("María's thread is listed %d times; body: %.3000s", n, list.Body)
		}
		list.contains(t, "María García", "Y ahora por WhatsApp: quería", "…", "10:01", `class="badge unread">2 unread</span>`)
		list.lacks(t, "FIN", "/app/conversations/"+itoa(sms)+`"`)

		// The old address of either conversation leads to the thread.
		for _, id := range []int64{sms, wa} {
			if p := u.get("/app/conversations/" + itoa(id)); p.Status != http.StatusSeeOther || p.Location != patientPath(maria) {
				t.Fatalf("conversation %d: %d %q", id, p.Status, p.Location)
			}
		}
		p := u.get(patientPath(maria)).must(t, http.StatusOK)
		first, second := strings.Index(p.Body, "escribo por SMS"), strings.Index(p.Body, "Y ahora por WhatsApp")
		if first < 0 || second < first {
			t.Fatalf("the thread is not in time order: %d %d", first, second)
		}
		imported := strings.Index(p.Body, "channel sms")
		if imported < 0 || !strings.Contains(p.Body, "channel wa") || !strings.Contains(p.Body, "no messaging channel") {
			t.Fatalf("the messages do not name their channels; body: %.4000s", p.Body)
		}
		p.contains(t, `href="/app/clients/`+itoa(maria)+`"`, "&#43;34600111222", `href="/app/appointments/`+itoa(appt)+`/reschedule"`, `href="/app/today"`,
			"3 conversations", "sent through channel wa")
		if h.unread() != 0 {
			t.Fatalf("opening the thread left %d unread", h.unread())
		}
		// Spanish for Eva, who follows the account's language.
		h.applyYAML(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: es}`)
		es := h.signedIn("eva@acme.test", "eva-password")
		es.get(patientPath(maria)).must(t, http.StatusOK).contains(t, "Próximas citas", "Enviar y resolver")
	})
}

// "Send and resolve" sends on the newest conversation's channel and
// resolves every open conversation of the patient in one click; the thread
// moves from New to Resolved.
func TestPatientSendAndResolve(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		maria := h.acme().Clients["maria"]
		sms := h.inbound("sms", mariaE164, mariaNational, "¿Puedo ir a las 11?")
		h.clock.Advance(time.Minute)
		wa := h.inbound("wa", mariaE164, mariaNational, "Respondedme por aquí")
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/conversations?show=new").contains(t, patientPath(maria))
		form := u.get(patientPath(maria)).must(t, http.StatusOK)
		p := u.post(patientPath(maria)+"/reply", url.Values{"body": {"Sí, a las 11."}, "nonce": {nonceField(t, form)}, "resolve": {"1"}}).must(t, http.StatusSeeOther)
		if p.Location != patientPath(maria) {
			t.Fatalf("back to %q", p.Location)
		}
		u.follow(p).contains(t, "Reply sent and conversation resolved.", "Sí, a las 11.")
		if n := h.count("messages", "conversation_id = ? AND sender_kind = 'user' AND content = 'Sí, a las 11.'", wa); n != 1 {
			t.Fatalf("replies in the WhatsApp conversation: %d", n)
		}
		if n := h.count("outbox", "kind = 'team_reply' AND channel_key = 'wa' AND recipient = ?", mariaE164); n != 1 {
			t.Fatalf("queued replies: %d", n)
		}
		if n := h.count("conversations", "id IN (?, ?) AND status = 'resolved'", sms, wa); n != 2 {
			t.Fatalf("resolved conversations: %d, want 2", n)
		}
		u.get("/app/conversations?show=new").lacks(t, patientPath(maria))
		u.get("/app/conversations?show=resolved").contains(t, patientPath(maria))
		// Mark resolved alone, after she writes again.
		h.clock.Advance(time.Hour)
		again := h.inbound("sms", mariaE164, mariaNational, "Gracias")
		u.get("/app/conversations?show=new").contains(t, patientPath(maria))
		u.get(patientPath(maria))
		u.follow(u.post(patientPath(maria)+"/resolve", nil)).contains(t, "Conversation resolved.")
		if n := h.count("conversations", "id = ? AND status = 'resolved'", again); n != 1 {
			t.Fatal("not resolved")
		}
	})
}

// A patient without any conversation: the thread page works, and the first
// message opens a conversation on the account's channel for team replies
// and leaves through the outbox; the inbox then lists the patient.
func TestPatientStartMessage(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		pedro := h.acme().Clients["pedro"]
		u := h.signedIn("sara@acme.test", "sara-password")
		u.get("/app/conversations").lacks(t, patientPath(pedro))
		form := u.get(patientPath(pedro)).must(t, http.StatusOK)
		form.contains(t, "Pedro Sánchez", "starts a conversation on channel sms", "No messages yet.")
		send := url.Values{"body": {"Hola Pedro, ¿le llamamos?"}, "nonce": {nonceField(t, form)}}
		u.follow(u.post(patientPath(pedro)+"/reply", send)).contains(t, "Reply sent", "Hola Pedro, ¿le llamamos?", "sent through channel sms")
		if n := h.count("conversations", "phone_national = '600333444' AND channel_id IS NOT NULL AND direction = 'outbound'"); n != 1 {
			t.Fatalf("conversations opened: %d", n)
		}
		if n := h.count("outbox", "kind = 'team_reply' AND channel_key = 'sms' AND recipient = '+34600333444'"); n != 1 {
			t.Fatalf("queued: %d", n)
		}
		// The same form again opens nothing more and sends nothing more.
		u.follow(u.post(patientPath(pedro)+"/reply", send)).contains(t, "already sent")
		if n := h.count("conversations", "phone_national = '600333444'"); n != 1 {
			t.Fatalf("conversations after a repeat: %d", n)
		}
		u.get("/app/conversations").contains(t, patientPath(pedro), "Team:", "Hola Pedro")
		// A message of the team's is no news.
		u.get("/app/conversations?show=new").lacks(t, patientPath(pedro))

		// The same first message sent twice at once (a double click): one
		// conversation, one message.
		h.applyYAML(`
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: en}
clients: [{key: nuevo, first_name: Nuevo, last_name: Paciente, phone: "+34600555666"}]
`)
		nuevo := patientPath(h.acme().Clients["nuevo"])
		twice := url.Values{"body": {"Bienvenido."}, "nonce": {nonceField(t, u.get(nuevo))}, "csrf_token": {u.csrf}}
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				u.post(nuevo+"/reply", url.Values{"body": twice["body"], "nonce": twice["nonce"], "csrf_token": twice["csrf_token"]})
			}()
		}
		wg.Wait()
		if n := h.count("conversations", "phone_national = '600555666'"); n != 1 {
			t.Errorf("conversations opened by a double submit: %d", n)
		}
		if n := h.count("outbox", "kind = 'team_reply' AND recipient = '+34600555666'"); n != 1 {
			t.Errorf("messages queued by a double submit: %d", n)
		}
	})
}

// No channel reaches the patient: the page says why, and a message is
// refused with a flash (the text kept in the box), never stored, never
// opening a conversation.
func TestPatientNoChannelRefused(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		h.applyYAML(`
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: en}
clients:
  - {key: nophone, first_name: Nora, last_name: Sinfono, email: nora@example.com}
  - {key: stop, first_name: Sergio, last_name: Stop, phone: "+34600444555"}
`)
		ctx := context.Background()
		acct := h.account("acme")
		sms, _ := channels.ByKeyWithoutCredentials(ctx, store, acct, "sms")
		stop := h.acme().Clients["stop"]
		if err := store.Transact(ctx, func(tx *db.Tx) error {
			_, err := channels.SetConsent(ctx, tx, acct, stop, sms.ID, true, testNow)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		stored := h.count("messages", "sender_kind = 'user'")
		for _, test := range []struct {
			name   string
			client int64
			want   string
		}{
			{"no phone", h.acme().Clients["nophone"], "has no phone number"},
			{"opted out", stop, "opted out of every channel"},
		} {
			t.Run(test.name, func(t *testing.T) {
				path := patientPath(test.client)
				u.get(path).must(t, http.StatusOK).contains(t, test.want).lacks(t, `id="reply-body"`)
				p := u.post(path+"/reply", url.Values{"body": {"Hola"}, "nonce": {"n-" + test.name}}).must(t, http.StatusSeeOther)
				u.follow(p).must(t, http.StatusOK).contains(t, `class="flash error"`, test.want)
				if n := h.count("messages", "sender_kind = 'user'"); n != stored {
					t.Errorf("messages stored: %d", n)
				}
				if n := h.count("outbox", "kind = 'team_reply'"); n != 0 {
					t.Errorf("outbox rows: %d", n)
				}
			})
		}
		if n := h.count("conversations", "phone_national IN ('600444555', '')"); n != 0 {
			t.Errorf("conversations opened: %d", n)
		}
		// No default channel at all: Pedro cannot be reached either.
		if _, err := store.Exec(ctx, `UPDATE accounts SET messaging = '{}' WHERE id = ?`, acct.ID); err != nil {
			t.Fatal(err)
		}
		pedro := patientPath(h.acme().Clients["pedro"])
		u.get(pedro).contains(t, "No messaging channel reaches this patient")
		p := u.post(pedro+"/reply", url.Values{"body": {"Hola Pedro"}, "nonce": {"n-none"}}).must(t, http.StatusSeeOther)
		if !strings.Contains(p.Location, "draft=Hola+Pedro") {
			t.Errorf("the text is not kept: %q", p.Location)
		}
		u.follow(p).contains(t, `class="flash error"`, "No messaging channel reaches this patient")
	})
}

// Automatic messages (a confirmation request, a reminder) make a thread
// but never a new or unread one; the patient's answer does, until the team
// answers.
func TestAutomaticThreadsAreNotNew(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		pedro := h.acme().Clients["pedro"]
		before := h.unread()
		h.channelMessage("sms", "+34600333444", "600333444", "Recordatorio: su cita es mañana a las 10:00. Responda SÍ para confirmar.", false)
		h.clock.Advance(time.Hour)
		h.channelMessage("sms", "+34600333444", "600333444", "Recordatorio: su cita es hoy.", false)
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/conversations").contains(t, patientPath(pedro), "Automatic:", "Recordatorio: su cita es hoy.")
		u.get("/app/conversations?show=new").lacks(t, patientPath(pedro)).contains(t, "New (0)")
		if h.unread() != before {
			t.Fatalf("automatic messages count as unread: %d", h.unread())
		}
		h.clock.Advance(time.Minute)
		h.channelMessage("sms", "+34600333444", "600333444", "¿Puedo cambiarla?", true)
		u.get("/app/conversations?show=new").contains(t, patientPath(pedro), "New (1)", "Patient:")
		form := u.get(patientPath(pedro))
		u.post(patientPath(pedro)+"/reply", url.Values{"body": {"Claro."}, "nonce": {nonceField(t, form)}}).must(t, http.StatusSeeOther)
		u.get("/app/conversations?show=new").lacks(t, patientPath(pedro))
		// Another reminder after the answer: still nothing new.
		h.clock.Advance(time.Minute)
		h.channelMessage("sms", "+34600333444", "600333444", "Recordatorio: mañana.", false)
		u.get("/app/conversations?show=new").lacks(t, patientPath(pedro))
		u.get("/app/conversations?show=mine").lacks(t, patientPath(pedro))
		u.get("/app/conversations").contains(t, patientPath(pedro))
	})
}

// Another account's patient is unknown on every route of the thread.
func TestPatientThreadOtherAccount(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		maria := h.acme().Clients["maria"]
		h.inbound("sms", mariaE164, mariaNational, "Hola")
		bob := h.newUser()
		bob.signIn("bob@other.test", "bob-password", "")
		bob.get("/app/keys")
		bob.get(patientPath(maria)).must(t, http.StatusNotFound)
		bob.get("/app/conversations").lacks(t, patientPath(maria), "Hola")
		bob.post(patientPath(maria)+"/reply", url.Values{"body": {"Hola"}, "nonce": {"x"}}).must(t, http.StatusNotFound)
		bob.post(patientPath(maria)+"/reply", url.Values{"body": {"Hola"}, "nonce": {"y"}, "resolve": {"1"}}).must(t, http.StatusNotFound)
		bob.post(patientPath(maria)+"/resolve", nil).must(t, http.StatusNotFound)
		if n := h.count("conversations", "phone_national = ? AND (status = 'resolved' OR read_at IS NOT NULL) AND channel_id IS NOT NULL", mariaNational); n != 0 {
			t.Error("another account changed the thread")
		}
		if n := h.count("outbox", "kind = 'team_reply'"); n != 0 {
			t.Error("another account queued a reply")
		}
	})
}
