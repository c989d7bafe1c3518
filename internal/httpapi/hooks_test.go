package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
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

// Provider callbacks at the HTTP door: bad input is a clear 4xx in the
// calendar envelope and changes nothing; a good one is answered as the
// provider expects.
func TestHookRequests(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		clk := clock.NewFake(testNow)
		box, _ := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
		file := `account: {slug: hooks, name: Hooks, timezone: Europe/Madrid, default_region: ES}
channels:
  - {key: sms, uuid: "6a0f3c1e-1111-4222-8333-944455556666", type: sms, provider: twilio, from: "+34910000001",
     credentials: {account_sid: AC1, auth_token: tok}}
  - {key: wa, uuid: "6a0f3c1e-1111-4222-8333-944455557777", type: whatsapp, provider: meta, from: "+34910000002",
     credentials: {phone_number_id: "1", access_token: at, app_secret: appsec, verify_token: v3rify}}
`
		if _, err := (&workspace.Applier{DB: store, Now: clk.Now, Secrets: box}).Apply(ctx, []byte(file)); err != nil {
			t.Fatal(err)
		}
		srv := httpapi.NewServer(httpapi.Config{DB: store, Clock: clk, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Hooks: &relay.Hooks{DB: store, Secrets: box, Clock: clk}, PublicURL: "https://fd.example"})
		const twilio = "/hooks/twilio/6a0f3c1e-1111-4222-8333-944455556666/inbound"
		const meta = "/hooks/whatsapp/6a0f3c1e-1111-4222-8333-944455557777"
		good := url.Values{"MessageSid": {"SM1"}, "From": {"+34600111222"}, "Body": {"hola"}, "NumMedia": {"0"}}
		sign := func(path string, form url.Values) string {
			return channels.TwilioSignature("tok", "https://fd.example"+path, form)
		}
		metaBody := `{"entry":[{"changes":[{"value":{"messages":[{"from":"34600111222","id":"wamid.1","type":"text","text":{"body":"hola"}}]}}]}]}`
		for _, test := range []struct {
			name, method, path, ctype, body string
			header                          map[string]string
			want                            int
			wantIn                          string
		}{
			{"twilio signed", "POST", twilio, "application/x-www-form-urlencoded", good.Encode(),
				map[string]string{"X-Twilio-Signature": sign(twilio, good)}, 200, "<Response>"},
			{"twilio unsigned", "POST", twilio, "application/x-www-form-urlencoded", good.Encode(), nil, 403, `"FORBIDDEN"`},
			{"twilio unknown channel", "POST", "/hooks/twilio/6a0f3c1e-1111-4222-8333-000000000000/inbound", "application/x-www-form-urlencoded", good.Encode(),
				map[string]string{"X-Twilio-Signature": sign(twilio, good)}, 404, `"NOT_FOUND"`},
			{"twilio JSON body", "POST", twilio, "application/json", `{}`, nil, 400, `"VALIDATION_ERROR"`},
			{"twilio malformed form", "POST", twilio, "application/x-www-form-urlencoded", "a=%zz", nil, 400, `"VALIDATION_ERROR"`},
			{"twilio 1 MiB body", "POST", twilio, "application/x-www-form-urlencoded", "Body=" + strings.Repeat("x", 1<<20), nil, 413, `"PAYLOAD_TOO_LARGE"`},
			{"meta verify", "GET", meta + "?hub.mode=subscribe&hub.verify_token=v3rify&hub.challenge=987", "", "", nil, 200, "987"},
			{"meta verify wrong token", "GET", meta + "?hub.mode=subscribe&hub.verify_token=x&hub.challenge=987", "", "", nil, 403, `"FORBIDDEN"`},
			{"meta signed", "POST", meta, "application/json", metaBody,
				map[string]string{"X-Hub-Signature-256": channels.MetaSignature("appsec", []byte(metaBody))}, 200, "received"},
			{"meta malformed JSON", "POST", meta, "application/json", "{", map[string]string{"X-Hub-Signature-256": channels.MetaSignature("appsec", []byte("{"))}, 400, `"VALIDATION_ERROR"`},
			{"meta unsigned", "POST", meta, "application/json", metaBody, nil, 403, `"FORBIDDEN"`},
			{"a NUL byte as the channel", "GET", "/hooks/whatsapp/%00?hub.mode=subscribe", "", "", nil, 404, `"NOT_FOUND"`},
			{"not a uuid", "POST", "/hooks/twilio/x'1/status", "application/x-www-form-urlencoded", good.Encode(), nil, 404, `"NOT_FOUND"`},
		} {
			t.Run(test.name, func(t *testing.T) {
				req := httptest.NewRequest(test.method, test.path, strings.NewReader(test.body))
				if test.ctype != "" {
					req.Header.Set("Content-Type", test.ctype)
				}
				for k, v := range test.header {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != test.want || !strings.Contains(rec.Body.String(), test.wantIn) {
					t.Fatalf("%d %s, want %d containing %s", rec.Code, rec.Body.String(), test.want, test.wantIn)
				}
			})
		}
		// Only the two signed messages were recorded.
		var n int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE provider_message_id IS NOT NULL`).Scan(&n)
		if n != 2 {
			t.Errorf("%d channel messages recorded, want 2", n)
		}
	})
}
