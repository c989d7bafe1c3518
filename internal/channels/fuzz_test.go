package channels_test

import (
	"net/url"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// The callback decoders read what anyone on the internet can post (the
// signature is checked on the same bytes, but a decoder must never panic
// before or after that). Seeds live in testdata/fuzz.

func FuzzParseMetaWebhook(f *testing.F) {
	f.Add([]byte(`{"object":"whatsapp_business_account","entry":[{"changes":[{"value":{"messages":[{"from":"34600111222","id":"wamid.1","type":"text","text":{"body":"si"}}]}}]}]}`))
	f.Add([]byte(`{"entry":[{"changes":[{"value":{"statuses":[{"id":"wamid.2","status":"read"}]}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ins, sts, err := channels.ParseMetaWebhook(body)
		if err != nil {
			return
		}
		for _, in := range ins {
			if in.ProviderID == "" || in.From == "" {
				t.Fatalf("accepted an inbound message without id or sender: %+v", in)
			}
		}
		for _, s := range sts {
			if s.ProviderID == "" {
				t.Fatalf("accepted a status without id: %+v", s)
			}
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
		if in, err := channels.ParseTwilioInbound(form); err == nil && (in.ProviderID == "" || in.From == "" || len(in.Media) > 10) {
			t.Fatalf("inbound accepted: %+v", in)
		}
		if st, err := channels.ParseTwilioStatus(form); err == nil && st.ProviderID == "" {
			t.Fatalf("status accepted: %+v", st)
		}
		channels.Classify(form.Get("Body"))
		channels.Segments(form.Get("Body"))
	})
}
