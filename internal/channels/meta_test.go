package channels_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

func TestMetaSend(t *testing.T) {
	fake := &channelstest.Meta{PhoneID: "1234", Token: "EAAtoken"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ch := channels.Channel{Key: "wa", Type: channels.TypeWhatsApp, Provider: channels.ProviderMeta, From: "+34910000002", APIBase: srv.URL, Active: true,
		Credentials: map[string]string{"phone_number_id": "1234", "access_token": "EAAtoken", "app_secret": "appsec", "verify_token": "v3rify"},
		Templates:   map[string]channels.Template{"booking_confirmation": {Name: "cita_confirmar", Language: "es"}}}
	bad := ch
	bad.Credentials = map[string]string{"phone_number_id": "1234", "access_token": "wrong"}
	p := &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}
	for _, test := range []struct {
		name, kind, to string
		ch             channels.Channel
		wantType       string
		wantCode       string
		retryable      bool
	}{
		{"text", "seat_offer", "+34600111222", ch, "text", "", false},
		{"template for a mapped kind", "booking_confirmation", "+34600111222", ch, "template", "", false},
		{"bad token", "seat_offer", "+34600111222", bad, "", "190", false},
		{"throughput limit retries", "seat_offer", "+34600114290", ch, "", "130429", true},
		{"500 retries", "seat_offer", "+34600115000", ch, "", "1", true},
	} {
		t.Run(test.name, func(t *testing.T) {
			res, err := p.Send(context.Background(), test.ch, channels.Outgoing{Kind: test.kind, To: test.to, Body: "Hola"})
			if test.wantCode != "" {
				var pe *channels.Error
				if !asErr(err, &pe) || pe.Code != test.wantCode || pe.Retryable != test.retryable {
					t.Fatalf("err = %#v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.ProviderID != "wamid.HBgL34600111222" {
				t.Errorf("provider id %q", res.ProviderID)
			}
			if got := fake.Sent()[len(fake.Sent())-1]["type"]; got != test.wantType {
				t.Errorf("type = %v, want %s", got, test.wantType)
			}
		})
	}
}

func TestMetaSignatureAndChallenge(t *testing.T) {
	body := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
	mac := hmac.New(sha256.New, []byte("appsec"))
	mac.Write(body)
	good := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	for _, test := range []struct {
		name, secret, header string
		body                 []byte
		want                 bool
	}{
		{"valid", "appsec", good, body, true},
		{"wrong secret", "other", good, body, false},
		{"tampered body", "appsec", good, append([]byte(" "), body...), false},
		{"missing header", "appsec", "", body, false},
		{"sha1 header", "appsec", strings.Replace(good, "sha256=", "sha1=", 1), body, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := channels.VerifyMeta(test.secret, test.body, test.header); got != test.want {
				t.Errorf("VerifyMeta = %v, want %v", got, test.want)
			}
		})
	}
	ch := channels.Channel{Credentials: map[string]string{"verify_token": "v3rify"}}
	if c, ok := channels.VerifyMetaChallenge(ch, url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"v3rify"}, "hub.challenge": {"1158201444"}}); !ok || c != "1158201444" {
		t.Errorf("challenge = %q %v", c, ok)
	}
	if _, ok := channels.VerifyMetaChallenge(ch, url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {"nope"}, "hub.challenge": {"1"}}); ok {
		t.Error("wrong verify token accepted")
	}
}

func TestParseMetaWebhook(t *testing.T) {
	// Shapes from Meta's webhook reference: a text message with its contact,
	// an image with a caption, and a failed status.
	body := `{"object":"whatsapp_business_account","entry":[{"id":"WABA","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"display_phone_number":"34910000002","phone_number_id":"1234"},
		"contacts":[{"profile":{"name":"Nora"},"wa_id":"34600111222"}],
		"messages":[{"from":"34600111222","id":"wamid.IN1","timestamp":"1764000000","type":"text","text":{"body":"SI"}},
		            {"from":"34600111222","id":"wamid.IN2","timestamp":"1764000001","type":"image","image":{"caption":"mi radiografía","mime_type":"image/jpeg","id":"m1"}}],
		"statuses":[{"id":"wamid.OUT1","status":"failed","timestamp":"1764000002","recipient_id":"34600111222","errors":[{"code":131026,"title":"Message undeliverable"}]}]}}]}]}`
	d, err := channels.ParseMetaWebhook([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	ins, sts := d.Inbound, d.Statuses
	if len(ins) != 2 || ins[0].From != "+34600111222" || ins[0].Body != "SI" || ins[0].Name != "Nora" || ins[0].ProviderID != "wamid.IN1" {
		t.Errorf("inbound = %+v", ins)
	}
	if len(ins[1].Media) != 1 || ins[1].Media[0].Kind != "image" || ins[1].Body != "mi radiografía" {
		t.Errorf("media = %+v", ins[1])
	}
	if len(sts) != 1 || sts[0].Status != "failed" || sts[0].ErrorCode != "131026" || len(d.Skipped) != 0 {
		t.Errorf("statuses = %+v, skipped %v", sts, d.Skipped)
	}
	// Not JSON, or not a webhook's frame: the delivery is refused.
	for _, bad := range []string{`not json`, `{"entry":"x"}`, `[]`, `{"entry":[{"changes":[{"value":{"messages":{}}}]}]}`,
		`{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":1}}}]}]}`} {
		if _, err := channels.ParseMetaWebhook([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// A message or status that cannot be used is left out and named (where
// and why, never its text); the others of the delivery are kept.
func TestParseMetaWebhookSkips(t *testing.T) {
	body := `{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"1234"},
		"contacts":[{"profile":{"name":"Nora"},"wa_id":"34600111222"}, [1]],
		"messages":[{"from":"34600111222","id":"wamid.1","type":"text","text":{"body":"uno"}},
		            {"from":"34600111222","type":"text","text":{"body":"secreto sin id"}},
		            {"id":"wamid.3","type":"text","text":{"body":"secreto sin remitente"}},
		            {"from":"34600111222","id":"wamid.4","type":"text","text":{"body":5}},
		            {"from":"\u0000","id":"wamid.5"}, {"from":"34600111222","id":"\u0000"}, null, "x",
		            {"from":"+34600111333","id":"wamid.9","type":"reaction"}],
		"statuses":[{"status":"read"}, {"id":"wamid.OUT1","status":"delivered"}, {"id":7}, {"id":"wamid.OUT2","errors":{"code":1}}]}}]}]}`
	d, err := channels.ParseMetaWebhook([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range d.Inbound {
		ids = append(ids, in.ProviderID+" "+in.From+" "+in.Name+" "+in.Body)
	}
	if want := []string{"wamid.1 +34600111222 Nora uno", "wamid.9 +34600111333  "}; !reflect.DeepEqual(ids, want) {
		t.Errorf("inbound = %q, want %q", ids, want)
	}
	if len(d.Statuses) != 1 || d.Statuses[0].ProviderID != "wamid.OUT1" || d.Statuses[0].PhoneNumberID != "1234" {
		t.Errorf("statuses = %+v", d.Statuses)
	}
	const at = "entry[0].changes[0].value."
	want := []string{at + "contacts[1]: not a contact object",
		at + "messages[1]: no id", at + "messages[2]: no from", at + "messages[3]: not a message object",
		at + "messages[4]: no from", at + "messages[5]: no id", at + "messages[6]: no id", at + "messages[7]: not a message object",
		at + "statuses[0]: no id", at + "statuses[2]: not a status object", at + "statuses[3]: not a status object"}
	if !reflect.DeepEqual(d.Skipped, want) {
		t.Errorf("skipped = %q\nwant %q", d.Skipped, want)
	}
	for _, why := range d.Skipped {
		if strings.Contains(why, "secreto") {
			t.Errorf("a reason carries the text: %q", why)
		}
	}
}
