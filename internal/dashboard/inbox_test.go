package dashboard_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// María's number in the acme fixture, and a number no client holds (its
// conversations are threads of their own, read on the conversation page).
const (
	mariaE164        = "+34600111222"
	mariaNational    = "600111222"
	strangerE164     = "+34600999888"
	strangerNational = "600999888"
)

// inbound records a patient's message arriving on one of acme's channels
// now (as the providers' callbacks do) and returns its conversation.
func (h *harness) inbound(channelKey, e164, national, text string) int64 {
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
			Inbound: true, Content: text, At: h.clock.Now()}, h.clock.Now())
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return conv
}

func (h *harness) unread() int {
	h.t.Helper()
	n, err := chat.UnreadCount(context.Background(), h.store, h.account("acme"))
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// nonceField reads the reply form's one-time token.
func nonceField(t *testing.T, p page) string {
	t.Helper()
	const mark = `name="nonce" value="`
	i := strings.Index(p.Body, mark)
	if i < 0 {
		t.Fatalf("no reply form; body: %.2000s", p.Body)
	}
	rest := p.Body[i+len(mark):]
	return rest[:strings.IndexByte(rest, '"')]
}

// A client's message makes a conversation unread (bold row, badge, count);
// opening it reads it; a newer client message makes it unread again; the
// unread view lists only unread ones.
func TestInboxUnread(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		before := h.unread()
		conv := h.inbound("sms", strangerE164, strangerNational, "¿Tenéis hueco el jueves?")
		if got := h.unread(); got != before+1 {
			t.Fatalf("unread = %d, want %d", got, before+1)
		}
		u := h.signedIn("ana@acme.test", "ana-password")
		list := u.get("/app/conversations").must(t, http.StatusOK)
		list.contains(t, `<tr class="unread">`, `class="badge unread">New</span>`, `class="badge unread">1 unread</span>`, "New (1)", "(1 unread)", "/app/conversations/"+itoa(conv))
		// Every page's navigation counts the unread conversations.
		u.get("/app/pipelines").must(t, http.StatusOK).contains(t, `<span class="badge unread-count">`+itoa(int64(before+1))+`<span class="visually-hidden"> unread</span>`)
		u.get("/app/conversations?show=new").must(t, http.StatusOK).contains(t, "/app/conversations/"+itoa(conv), "1 patient or sender.")

		h.clock.Advance(time.Minute)
		u.get("/app/conversations/"+itoa(conv)).must(t, http.StatusOK).contains(t, "¿Tenéis hueco el jueves?")
		if got := h.unread(); got != before {
			t.Fatalf("after opening: unread = %d, want %d", got, before)
		}
		// Read but unanswered: still new, no longer unread.
		if p := u.get("/app/conversations?show=new"); !strings.Contains(p.Body, "/app/conversations/"+itoa(conv)) || strings.Contains(p.Body, "1 unread</span>") {
			t.Fatalf("a read, unanswered conversation: %.2000s", p.Body)
		}
		if before == 0 {
			if p := u.get("/app/pipelines"); strings.Contains(p.Body, "unread-count") {
				t.Fatal("the navigation counts unread conversations when there are none")
			}
		}

		h.clock.Advance(time.Minute)
		if again := h.inbound("sms", strangerE164, strangerNational, "¿Hola?"); again != conv {
			t.Fatalf("the message opened conversation %d, want %d", again, conv)
		}
		if got := h.unread(); got != before+1 {
			t.Fatalf("after a new message: unread = %d, want %d", got, before+1)
		}
		u.get("/app/conversations?show=new").must(t, http.StatusOK).contains(t, "/app/conversations/"+itoa(conv), "New (1)", "1 unread</span>")

		// Spanish for Eva, who follows the account's language.
		h.applyYAML(`account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: es}`)
		es := h.signedIn("eva@acme.test", "eva-password")
		es.get("/app/conversations").must(t, http.StatusOK).contains(t, "Bandeja de entrada", "Nuevas (1)")
	})
}

// Assigning to a team member, to oneself and to nobody; the view "mine"
// follows. Another account's user is refused as unknown,
// and nothing changes.
func TestInboxAssign(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		conv := h.inbound("sms", strangerE164, strangerNational, "Hola")
		path := "/app/conversations/" + itoa(conv)
		assigned := func() int64 {
			var id *int64
			if err := store.QueryRow(context.Background(), `SELECT assigned_user_id FROM conversations WHERE id = ?`, conv).Scan(&id); err != nil {
				t.Fatal(err)
			}
			if id == nil {
				return 0
			}
			return *id
		}
		ana, sara := h.acme().Users["ana"], h.acme().Users["sara"]
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get(path)
		u.get("/app/conversations").contains(t, path)

		p := u.follow(u.post(path+"/assign", url.Values{"user_id": {itoa(sara)}}))
		p.contains(t, "Conversation assigned.", `<dd id="conv-assignee">Sara Staff</dd>`)
		if assigned() != sara {
			t.Fatalf("assigned to %d, want Sara %d", assigned(), sara)
		}
		u.get("/app/conversations").contains(t, "Sara Staff")
		u.get("/app/conversations?show=mine").contains(t, "No conversation matches")
		h.signedIn("sara@acme.test", "sara-password").get("/app/conversations?show=mine").contains(t, path)

		u.get(path)
		u.follow(u.post(path+"/assign", url.Values{"user_id": {itoa(ana)}})).contains(t, "The conversation is assigned to you.")
		u.get("/app/conversations?show=mine").contains(t, path)
		for _, test := range []struct{ name, user, want string }{
			{"another account's user", itoa(h.other().Users["bob"]), "not an active member"},
			{"no such user", "999999", "not an active member"},
			{"not a number", "sara", "Choose a team member."},
		} {
			t.Run(test.name, func(t *testing.T) {
				u.get(path)
				p := u.post(path+"/assign", url.Values{"user_id": {test.user}}).must(t, http.StatusSeeOther)
				u.follow(p).contains(t, test.want, `<dd id="conv-assignee">Ana Ruiz</dd>`)
				if assigned() != ana {
					t.Fatalf("assigned to %d after a refused assignment", assigned())
				}
			})
		}
		u.get(path)
		u.follow(u.post(path+"/assign", url.Values{"user_id": {"0"}})).contains(t, "Nobody is assigned")
		if assigned() != 0 {
			t.Fatalf("still assigned to %d", assigned())
		}
		u.get("/app/conversations").contains(t, path)
	})
}

// The status form goes through chat.UpdateConversation: the change is
// stored and the account's webhooks hear chat.conversation_updated, as
// from the admin API; expired and unknown statuses are refused.
func TestInboxStatus(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		h.applyWebhook()
		conv := h.inbound("sms", strangerE164, strangerNational, "Hola")
		path := "/app/conversations/" + itoa(conv)
		events := func() int {
			return h.count("outbox", "source_type = 'event:chat.conversation_updated' AND source_id = ?", conv)
		}
		u := h.signedIn("sara@acme.test", "sara-password") // staff run the day
		u.get(path)
		u.follow(u.post(path+"/status", url.Values{"status": {"human_handling"}})).contains(t, "Status changed to Team handling.", `<dd id="conv-status">Team handling</dd>`)
		if n := h.count("conversations", "id = ? AND status = 'human_handling'", conv); n != 1 {
			t.Fatal("status not stored")
		}
		if events() != 1 {
			t.Fatalf("webhook events = %d, want 1", events())
		}
		u.get(path)
		u.post(path+"/status", url.Values{"status": {"human_handling"}}).must(t, http.StatusSeeOther)
		if events() != 1 {
			t.Fatalf("an unchanged status emitted an event (%d)", events())
		}
		for _, bad := range []string{"expired", "closed", ""} {
			u.get(path)
			u.follow(u.post(path+"/status", url.Values{"status": {bad}})).contains(t, "Choose a status.")
		}
		u.get(path)
		u.follow(u.post(path+"/status", url.Values{"status": {"resolved"}})).contains(t, "Status changed to Resolved.")
		if events() != 2 {
			t.Fatalf("webhook events = %d, want 2", events())
		}
		_, body := h.api("GET", "/api/v2/public/chat/conversations?status=resolved&include_messages=false", acmeKey, nil)
		if !strings.Contains(mustJSON(body), `"session_id":`+itoa(conv)+`,"status":"resolved"`) {
			t.Errorf("the API does not see the conversation resolved: %v", body)
		}
	})
}

// applyYAML applies a workspace file on top of the fixtures.
func (h *harness) applyYAML(doc string) {
	h.t.Helper()
	res, err := (&workspace.Applier{DB: h.store, Now: h.clock.Now, HashPassword: password.Hash}).Apply(context.Background(), []byte(doc))
	if err != nil {
		h.t.Fatalf("apply: %v", err)
	}
	h.merge(res)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// applyWebhook subscribes acme's crm hook to conversation changes too.
func (h *harness) applyWebhook() {
	h.t.Helper()
	h.applyYAML(`
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: en}
webhooks: [{key: crm, url: "https://example.test/hooks", events: [appointment.booked, chat.conversation_updated], secret: s3cret, active: true}]
`)
}

// A reply is stored as the signed-in member's `user` message (in the
// transcript and the public chat API) and queued in the outbox for the
// conversation's channel with its delivery job; submitting the same form
// twice sends once.
func TestInboxReply(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		conv := h.inbound("sms", strangerE164, strangerNational, "¿Me confirmáis la cita?")
		path := "/app/conversations/" + itoa(conv)
		u := h.signedIn("ana@acme.test", "ana-password")
		form := u.get(path).must(t, http.StatusOK)
		form.contains(t, `id="reply-body"`, "sent through channel sms")
		nonce := nonceField(t, form)
		send := url.Values{"body": {"  Sí, el jueves a las 10:00.  "}, "nonce": {nonce}}
		p := u.follow(u.post(path+"/reply", send))
		p.contains(t, "Reply sent", "Sí, el jueves a las 10:00.", "Ana Ruiz", `<div class="meta delivery">Queued for sending</div>`)

		ana := h.acme().Users["ana"]
		if n := h.count("messages", "conversation_id = ? AND sender_kind = 'user' AND user_id = ? AND content = ?", conv, ana, "Sí, el jueves a las 10:00."); n != 1 {
			t.Fatalf("user messages = %d, want 1", n)
		}
		var msgID int64
		store.QueryRow(context.Background(), `SELECT id FROM messages WHERE conversation_id = ? AND sender_kind = 'user'`, conv).Scan(&msgID)
		if n := h.count("outbox", "kind = 'team_reply' AND channel_key = 'sms' AND channel = 'sms' AND recipient = ? AND status = 'pending' AND source_type = 'chat_message' AND source_id = ? AND body = ?",
			strangerE164, msgID, "Sí, el jueves a las 10:00."); n != 1 {
			t.Fatalf("outbox rows = %d, want 1", n)
		}
		if n := h.count("jobs", "kind = 'deliver_message' AND outbox_id = (SELECT id FROM outbox WHERE source_type = 'chat_message' AND source_id = ?)", msgID); n != 1 {
			t.Fatalf("delivery jobs = %d, want 1", n)
		}

		// The worker's verdict shows under the reply.
		if _, err := store.Exec(context.Background(), `UPDATE outbox SET status = 'suppressed', error = 'opted out: the client replied STOP on channel "sms"' WHERE source_id = ? AND source_type = 'chat_message'`, msgID); err != nil {
			t.Fatal(err)
		}
		u.get(path).contains(t, `<div class="meta delivery">Not sent: opted out: the client replied STOP on channel &#34;sms&#34;</div>`)

		// The same form again (a double click, a browser retry): nothing more.
		u.follow(u.post(path+"/reply", send)).contains(t, "already sent")
		if n := h.count("outbox", "kind = 'team_reply'"); n != 1 {
			t.Fatalf("outbox rows after a repeat = %d, want 1", n)
		}
		if n := h.count("messages", "conversation_id = ? AND sender_kind = 'user'", conv); n != 1 {
			t.Fatalf("user messages after a repeat = %d, want 1", n)
		}
		// A fresh form sends again.
		send = url.Values{"body": {"Hasta el jueves."}, "nonce": {nonceField(t, u.get(path))}}
		u.follow(u.post(path+"/reply", send)).contains(t, "Reply sent", "Hasta el jueves.")
		if n := h.count("outbox", "kind = 'team_reply'"); n != 2 {
			t.Fatalf("outbox rows = %d, want 2", n)
		}

		// The public chat API shows the reply as a user message by Ana.
		status, body := h.api("GET", "/api/v2/public/chat/conversations/"+itoa(conv)+"/messages", acmeKey, nil)
		if status != http.StatusOK {
			t.Fatalf("messages API: %d %v", status, body)
		}
		found := false
		for _, m := range body["data"].([]any) {
			msg := m.(map[string]any)
			sender, _ := msg["sender"].(map[string]any)
			if msg["content"] == "Sí, el jueves a las 10:00." && sender["type"] == "user" && sender["name"] == "Ana Ruiz" {
				found = true
			}
		}
		if !found {
			t.Errorf("the API does not show the reply as Ana's user message: %v", body["data"])
		}
		status, body = h.api("GET", "/api/v2/public/chat/conversations?sort_by=-updated_at", acmeKey, nil)
		if status != http.StatusOK || !strings.Contains(mustJSON(body), `"type":"user"`) {
			t.Errorf("list API: %d %v", status, body)
		}
	})
}

// A reply is refused, with the reason and nothing stored or queued, for a
// conversation without a channel, a client who opted out, an inactive
// channel, an empty or overlong text and a missing token.
func TestInboxReplyRefused(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		ctx := context.Background()
		acct := h.account("acme")
		viaSMS := h.inbound("sms", strangerE164, strangerNational, "Hola")
		optedOut := h.inbound("wa", mariaE164, mariaNational, "Hola por WhatsApp")
		wa, _ := channels.ByKeyWithoutCredentials(ctx, store, acct, "wa")
		store.Transact(ctx, func(tx *db.Tx) error {
			_, err := channels.SetConsent(ctx, tx, acct, h.acme().Clients["maria"], wa.ID, true, testNow)
			return err
		})
		h.applyYAML(`
account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES, language: en}
conversations:
  - {key: lone, customer_phone_number: "+34600999777", status: new, direction: inbound, created_at: "2026-01-05T10:00:00Z",
     messages: [{from: client, content: Hola, timestamp: "2026-01-05T10:00:00Z"}]}
`)
		noChannel := h.acme().Conversations["lone"]
		u := h.signedIn("ana@acme.test", "ana-password")
		u.get("/app/conversations/"+itoa(noChannel)).contains(t, "did not come through a messaging channel")
		for _, test := range []struct {
			name string
			conv int64
			form url.Values
			want string
		}{
			{"no channel", noChannel, url.Values{"body": {"Hola"}, "nonce": {"n-1"}}, "did not come through a messaging channel"},
			{"opted out", optedOut, url.Values{"body": {"Hola"}, "nonce": {"n-2"}}, "opted out of this channel"},
			{"empty", viaSMS, url.Values{"body": {"   "}, "nonce": {"n-3"}}, "Write a message first."},
			{"too long", viaSMS, url.Values{"body": {strings.Repeat("a", chat.MaxReplyLength+1)}, "nonce": {"n-4"}}, "too long"},
			{"no token", viaSMS, url.Values{"body": {"Hola"}}, "This form has expired."},
		} {
			t.Run(test.name, func(t *testing.T) {
				path := "/app/conversations/" + itoa(test.conv)
				u.get(path)
				p := u.post(path+"/reply", test.form).must(t, http.StatusSeeOther)
				if p.Location != path {
					t.Errorf("back to %q, want %q", p.Location, path)
				}
				// A patient's conversation shows in the patient's thread.
				got := u.follow(p)
				for got.Status == http.StatusSeeOther {
					got = u.get(got.Location)
				}
				got.contains(t, test.want)
				if n := h.count("messages", "sender_kind = 'user' AND conversation_id = ?", test.conv); n != 0 {
					t.Errorf("user messages stored: %d", n)
				}
				if n := h.count("outbox", "kind = 'team_reply'"); n != 0 {
					t.Errorf("outbox rows: %d", n)
				}
			})
		}
		// An inactive channel.
		if _, err := store.Exec(ctx, `UPDATE channels SET active = ? WHERE account_id = ? AND file_key = 'sms'`, false, acct.ID); err != nil {
			t.Fatal(err)
		}
		path := "/app/conversations/" + itoa(viaSMS)
		u.get(path)
		u.follow(u.post(path+"/reply", url.Values{"body": {"Hola"}, "nonce": {"n-5"}})).contains(t, "channel is inactive")
		if n := h.count("outbox", "kind = 'team_reply'"); n != 0 {
			t.Errorf("outbox rows: %d", n)
		}
	})
}

// Another account's conversation is unknown on every route: the pages and
// the actions answer 404 and change nothing.
func TestInboxOtherAccount(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		h.applyChannels()
		conv := h.inbound("sms", strangerE164, strangerNational, "Hola")
		path := "/app/conversations/" + itoa(conv)
		bob := h.newUser()
		bob.signIn("bob@other.test", "bob-password", "")
		bob.get("/app/keys")
		bob.get(path).must(t, http.StatusNotFound)
		for _, test := range []struct {
			action string
			form   url.Values
		}{
			{"/assign", url.Values{"user_id": {itoa(h.other().Users["bob"])}}},
			{"/assign", url.Values{"user_id": {"0"}}},
			{"/status", url.Values{"status": {"resolved"}}},
			{"/status", url.Values{"status": {"nonsense"}}},
			{"/reply", url.Values{"body": {"Hola"}, "nonce": {"x"}}},
			{"/reply", url.Values{"body": {""}}},
		} {
			bob.post(path+test.action, test.form).must(t, http.StatusNotFound)
		}
		if n := h.count("conversations", "id = ? AND status = 'new' AND assigned_user_id IS NULL AND read_at IS NULL", conv); n != 1 {
			t.Error("another account changed the conversation")
		}
		if n := h.count("messages", "conversation_id = ? AND sender_kind = 'user'", conv); n != 0 {
			t.Error("another account replied")
		}
		if n := h.count("outbox", "kind = 'team_reply'"); n != 0 {
			t.Error("another account queued a reply")
		}
	})
}
