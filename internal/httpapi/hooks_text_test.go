package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/relay"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// hookEnv is a server with the providers' callbacks on, one Twilio and one
// Meta channel, and an API key to read the chat history back with.
type hookEnv struct {
	t     *testing.T
	store *db.DB
	srv   *httpapi.Server
}

const (
	cleanTwilio = "/hooks/twilio/6a0f3c1e-2222-4222-8333-944455556666"
	cleanMeta   = "/hooks/whatsapp/6a0f3c1e-2222-4222-8333-944455557777"
	cleanKey    = "pk_test_clean_main"
)

func newHookEnv(t *testing.T, store *db.DB) *hookEnv {
	t.Helper()
	clk := clock.NewFake(testNow)
	box, _ := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	file := `account: {slug: clean, name: Clean, timezone: Europe/Madrid, default_region: ES}
api_keys: [{key: main, value: ` + cleanKey + `}]
channels:
  - {key: sms, uuid: "6a0f3c1e-2222-4222-8333-944455556666", type: sms, provider: twilio, from: "+34910000001",
     credentials: {account_sid: AC1, auth_token: tok}}
  - {key: wa, uuid: "6a0f3c1e-2222-4222-8333-944455557777", type: whatsapp, provider: meta, from: "+34910000002",
     credentials: {phone_number_id: "1", access_token: at, app_secret: appsec, verify_token: v3rify}}
`
	if _, err := (&workspace.Applier{DB: store, Now: clk.Now, Secrets: box}).Apply(context.Background(), []byte(file)); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return &hookEnv{t: t, store: store, srv: httpapi.NewServer(httpapi.Config{DB: store, Clock: clk, Log: log,
		Hooks: &relay.Hooks{DB: store, Secrets: box, Clock: clk, Log: log}, PublicURL: "https://fd.example"})}
}

// twilio posts a signed Twilio form to path (under the Twilio channel).
func (e *hookEnv) twilio(path string, form url.Values) (int, string) {
	req := httptest.NewRequest("POST", cleanTwilio+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Twilio-Signature", channels.TwilioSignature("tok", "https://fd.example"+cleanTwilio+path, form))
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// meta posts a signed Meta delivery.
func (e *hookEnv) meta(body string) (int, string) {
	req := httptest.NewRequest("POST", cleanMeta, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", channels.MetaSignature("appsec", []byte(body)))
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// get reads the public API with the account's key.
func (e *hookEnv) get(path string) map[string]any {
	e.t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+cleanKey)
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); rec.Code != 200 || err != nil {
		e.t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return out
}

// chatMessage is a message as the chat API shows it.
type chatMessage struct {
	Content string
	Media   any
}

// messages reads every conversation's messages through the chat API, in
// conversation then message order.
func (e *hookEnv) messages() []chatMessage {
	e.t.Helper()
	var out []chatMessage
	var ids []int64
	for _, c := range e.get("/api/v2/public/chat/conversations?include_messages=false")["data"].([]any) {
		ids = append(ids, int64(c.(map[string]any)["session_id"].(float64)))
	}
	slices.Sort(ids)
	for _, id := range ids {
		for _, m := range e.get(fmt.Sprintf("/api/v2/public/chat/conversations/%d/messages", id))["data"].([]any) {
			mm := m.(map[string]any)
			content, _ := mm["content"].(string)
			out = append(out, chatMessage{Content: content, Media: mm["media"]})
		}
	}
	return out
}

// A callback's texts are stored sanitised (NUL removed, invalid UTF-8 as
// U+FFFD) on both engines: PostgreSQL used to answer 500 to them, and the
// provider retried into the same 500 while the patient's message was lost.
func TestHookTextsSanitised(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newHookEnv(t, store)
		ctx := context.Background()

		// Inbound messages, each sent twice (the provider's retry of a stored
		// message changes nothing): the message the chat API then shows last.
		docBody := "{\"entry\":[{\"changes\":[{\"value\":{\"metadata\":{\"phone_number_id\":\"1\"}," +
			"\"messages\":[{\"from\":\"34600111333\",\"id\":\"wamid.C2\",\"type\":\"document\",\"document\":{\"mime_type\":\"application/p\\u0000df\",\"filename\":\"a\\u0000.pdf\",\"caption\":\"mi\\u0000 informe\\ud800\"}}]}}]}]}"
		for _, test := range []struct {
			name string
			send func() (int, string)
			want chatMessage
		}{
			{"twilio Body and ProfileName", func() (int, string) {
				return e.twilio("/inbound", url.Values{"MessageSid": {"SMclean1"}, "From": {"+34600111222"}, "To": {"+34910000001"},
					"Body": {"Hola\x00 \xffmundo"}, "ProfileName": {"Ma\x00r\xfeía"}, "NumMedia": {"0"}})
			}, chatMessage{"Hola \uFFFDmundo", nil}},
			{"twilio sid, From and media", func() (int, string) {
				return e.twilio("/inbound", url.Values{"MessageSid": {"SMclean\x002"}, "From": {"+34600\x00111222"}, "To": {"+34910000001"},
					"Body": {"foto"}, "NumMedia": {"1"}, "MediaContentType0": {"image/jp\x00eg"}, "MediaUrl0": {"https://media.example/\xff1"}})
			}, chatMessage{"foto", map[string]any{"kind": "image", "mime": "image/jpeg", "filename": nil, "caption": nil}}},
			{"meta text and profile name", func() (int, string) {
				return e.meta("{\"entry\":[{\"changes\":[{\"value\":{\"metadata\":{\"phone_number_id\":\"1\"}," +
					"\"contacts\":[{\"profile\":{\"name\":\"N\\u0000o\xffra\"},\"wa_id\":\"34600111333\"}]," +
					"\"messages\":[{\"from\":\"34600111333\",\"id\":\"wamid.C1\",\"type\":\"text\",\"text\":{\"body\":\"s\\u0000\xffi\"}}]}}]}]}")
			}, chatMessage{"s\uFFFDi", nil}},
			{"meta document", func() (int, string) { return e.meta(docBody) },
				chatMessage{"mi informe\uFFFD", map[string]any{"kind": "document", "mime": "application/pdf", "filename": "a.pdf", "caption": "mi informe\uFFFD"}}},
		} {
			t.Run(test.name, func(t *testing.T) {
				before := len(e.messages())
				for i := 0; i < 2; i++ {
					if code, body := test.send(); code != 200 {
						t.Fatalf("#%d: %d %s", i+1, code, body)
					}
				}
				got := e.messages()
				if len(got) != before+1 || !reflect.DeepEqual(got[len(got)-1], test.want) {
					t.Fatalf("stored %#v, want %d messages, the last %#v", got, before+1, test.want)
				}
			})
		}
		var sid, phone string
		store.QueryRow(ctx, `SELECT m.provider_message_id, c.customer_phone_number FROM messages m JOIN conversations c ON c.account_id = m.account_id AND c.id = m.conversation_id
			WHERE m.content = 'foto'`).Scan(&sid, &phone)
		if sid != "SMclean2" || phone != "+34600111222" {
			t.Errorf("provider id %q, phone %q", sid, phone)
		}

		// Twilio status: the sid and the error code.
		var chID, acctID int64
		store.QueryRow(ctx, `SELECT id, account_id FROM channels WHERE file_key = 'sms'`).Scan(&chID, &acctID)
		var outID int64
		if err := store.QueryRow(ctx, `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, scheduled_at, created_at,
				source_type, channel_id, channel_key, provider_message_id) VALUES (?, 'booking_confirmation', 'sms', '+34600111222', 'x', 'sent', ?, ?, 'booking', ?, 'sms', 'SMout1') RETURNING id`,
			acctID, db.Micros(testNow), db.Micros(testNow), chID).Scan(&outID); err != nil {
			t.Fatal(err)
		}
		st := url.Values{"MessageSid": {"SMout1\x00"}, "MessageStatus": {"undelivered"}, "ErrorCode": {"300\x0003\xff"}, "ErrorMessage": {"x\x00\xff"}}
		if code, body := e.twilio("/status", st); code != 204 {
			t.Fatalf("twilio status: %d %s", code, body)
		}
		var status, errText string
		store.QueryRow(ctx, `SELECT status, error FROM outbox WHERE id = ?`, outID).Scan(&status, &errText)
		if status != "failed" || errText != "twilio error 30003\uFFFD" {
			t.Errorf("outbox %q %q", status, errText)
		}
	})
}

// A Meta delivery keeps its good messages and statuses when others cannot
// be used; a body that is no webhook at all is still refused.
func TestMetaPartialDelivery(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newHookEnv(t, store)
		ctx := context.Background()
		var chID, acctID int64
		store.QueryRow(ctx, `SELECT id, account_id FROM channels WHERE file_key = 'wa'`).Scan(&chID, &acctID)
		var outID int64
		if err := store.QueryRow(ctx, `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, scheduled_at, created_at,
				source_type, channel_id, channel_key, provider_message_id) VALUES (?, 'seat_offer', 'whatsapp', '+34600111222', 'x', 'sent', ?, ?, 'booking', ?, 'wa', 'wamid.OUT1') RETURNING id`,
			acctID, db.Micros(testNow), db.Micros(testNow), chID).Scan(&outID); err != nil {
			t.Fatal(err)
		}
		body := `{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1"},
			"contacts":[{"profile":{"name":"Nora"},"wa_id":"34600111333"}, "not a contact"],
			"messages":[{"from":"34600111333","type":"text","text":{"body":"sin id"}},
			            {"from":"34600111333","id":"wamid.G1","type":"text","text":{"body":"primero"}},
			            {"id":"wamid.B2","type":"text","text":{"body":"sin remitente"}},
			            {"from":"34600111333","id":"wamid.B3","type":"text","text":"no es un objeto"},
			            {"from":"12","id":"wamid.B4","type":"text","text":{"body":"número imposible"}},
			            17,
			            {"from":"34600111444","id":"wamid.G2","type":"text","text":{"body":"segundo"}}],
			"statuses":[{"status":"read"}, {"id":"wamid.OUT1","status":"delivered"}, {"id":["x"]}]}}]}]}`
		for i := 0; i < 2; i++ { // Meta's resend of the same delivery changes nothing
			if code, resp := e.meta(body); code != 200 || !strings.Contains(resp, "received") {
				t.Fatalf("delivery #%d: %d %s", i+1, code, resp)
			}
			if got, want := e.messages(), []chatMessage{{"primero", nil}, {"segundo", nil}}; !reflect.DeepEqual(got, want) {
				t.Fatalf("delivery #%d stored %#v, want %#v", i+1, got, want)
			}
			var status string
			store.QueryRow(ctx, `SELECT status FROM outbox WHERE id = ?`, outID).Scan(&status)
			if status != "delivered" {
				t.Errorf("delivery #%d: outbox %s", i+1, status)
			}
		}
		// Not JSON, or not a webhook's frame: 400 as before; unsigned: 403.
		for _, test := range []struct {
			name, body string
			want       int
		}{
			{"not JSON", `{"entry":[`, 400},
			{"a list", `[]`, 400},
			{"entry not a list", `{"entry":"x"}`, 400},
			{"messages not a list", `{"entry":[{"changes":[{"value":{"messages":{"id":"wamid.X"}}}]}]}`, 400},
		} {
			if code, resp := e.meta(test.body); code != test.want {
				t.Errorf("%s: %d %s, want %d", test.name, code, resp, test.want)
			}
		}
		req := httptest.NewRequest("POST", cleanMeta, strings.NewReader(body))
		req.Header.Set("X-Hub-Signature-256", channels.MetaSignature("wrong", []byte(body)))
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, req)
		if rec.Code != 403 {
			t.Errorf("wrong signature: %d", rec.Code)
		}
		if n := len(e.messages()); n != 2 {
			t.Errorf("%d messages after the refused deliveries, want 2", n)
		}
	})
}
