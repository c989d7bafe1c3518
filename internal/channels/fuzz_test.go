package channels_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// The callback decoders read what anyone on the internet can post (the
// signature is checked on the same bytes, but a decoder must never panic
// before or after that), and every text it returns must be storable on
// both engines: valid UTF-8 without NUL. Seeds live in testdata/fuzz.

// cleanText fails unless s is what PostgreSQL can store: valid UTF-8
// without NUL (channels.CleanText).
func cleanText(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		t.Fatalf("%s %q is not clean text", what, s)
	}
}

func checkInbound(t *testing.T, in channels.Inbound) {
	t.Helper()
	for what, s := range map[string]string{"id": in.ProviderID, "phone number id": in.PhoneNumberID, "from": in.From, "to": in.To, "body": in.Body, "name": in.Name} {
		cleanText(t, what, s)
	}
	for _, m := range in.Media {
		for what, s := range map[string]string{"media kind": m.Kind, "mime": m.MIME, "url": m.URL, "filename": m.Filename, "caption": m.Caption} {
			cleanText(t, what, s)
		}
	}
}

func checkStatus(t *testing.T, u channels.StatusUpdate) {
	t.Helper()
	for what, s := range map[string]string{"id": u.ProviderID, "phone number id": u.PhoneNumberID, "status": u.Status, "error code": u.ErrorCode, "error": u.Error} {
		cleanText(t, what, s)
	}
}

func FuzzParseMetaWebhook(f *testing.F) {
	f.Add([]byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"messages":[{"from":"34600111222","id":"wamid.1","type":"text","text":{"body":"si"}}]}}]}]}`))
	f.Add([]byte(`{"entry":[{"changes":[{"value":{"statuses":[{"id":"wamid.2","status":"read"}]}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := channels.ParseMetaWebhook(body)
		if err != nil {
			return
		}
		for _, in := range d.Inbound {
			if in.ProviderID == "" || in.From == "" || in.From == "+" {
				t.Fatalf("accepted an inbound message without id or sender: %+v", in)
			}
			checkInbound(t, in)
		}
		for _, s := range d.Statuses {
			if s.ProviderID == "" {
				t.Fatalf("accepted a status without id: %+v", s)
			}
			checkStatus(t, s)
		}
	})
}

func FuzzParseTwilioForm(f *testing.F) {
	f.Add("MessageSid=SM1&From=%2B34600111222&To=%2B34910000001&Body=Si&NumMedia=0")
	f.Add("MessageSid=SM1&MessageStatus=delivered")
	f.Add("MessageSid=SM1&From=whatsapp%3A%2B34600111222&NumMedia=2&MediaContentType0=image%2Fjpeg")
	f.Fuzz(func(t *testing.T, raw string) {
		form, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if in, err := channels.ParseTwilioInbound(form); err == nil {
			if in.ProviderID == "" || in.From == "" || len(in.Media) > 10 {
				t.Fatalf("inbound accepted: %+v", in)
			}
			checkInbound(t, in)
		}
		if st, err := channels.ParseTwilioStatus(form); err == nil {
			if st.ProviderID == "" {
				t.Fatalf("status accepted: %+v", st)
			}
			checkStatus(t, st)
		}
		channels.Classify(form.Get("Body"))
		channels.Segments(form.Get("Body"))
	})
}
