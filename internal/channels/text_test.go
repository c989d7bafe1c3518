package channels_test

import (
	"net/url"
	"reflect"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
)

func TestCleanText(t *testing.T) {
	for _, test := range []struct{ name, in, want string }{
		{"clean text is kept", "Sí, gracias 😀", "Sí, gracias 😀"},
		{"empty", "", ""},
		{"NUL removed", "a\x00b\x00", "ab"},
		{"only NUL", "\x00\x00", ""},
		{"invalid byte replaced", "a\xffb", "a\uFFFDb"},
		{"truncated sequence replaced once", "ma\xc3", "ma\uFFFD"},
		{"surrogate half (CESU-8) replaced once", "\xed\xa0\x80x", "\uFFFDx"},
		{"both", "\x00\xfe\x00ok", "\uFFFDok"},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := channels.CleanText(test.in); got != test.want {
				t.Errorf("CleanText(%q) = %q, want %q", test.in, got, test.want)
			}
		})
	}
}

// Every text a Twilio callback carries comes out of the decoders clean; a
// sid or sender that is nothing but NUL is missing.
func TestParseTwilioCleansTexts(t *testing.T) {
	in, err := channels.ParseTwilioInbound(url.Values{"MessageSid": {"SM\x001"}, "From": {"whatsapp:+34600\x00111222"}, "To": {"+3491\xff"},
		"Body": {"S\x00\xffí"}, "ProfileName": {"Ma\x00ría\xfe"}, "NumMedia": {"1"}, "MediaContentType0": {"audio/\x00ogg"}, "MediaUrl0": {"https://m/\xff"}})
	want := channels.Inbound{ProviderID: "SM1", From: "+34600111222", To: "+3491\uFFFD", Body: "S\uFFFDí", Name: "María\uFFFD",
		Media: []channels.Media{{Kind: "audio", MIME: "audio/ogg", URL: "https://m/\uFFFD"}}}
	if err != nil || !reflect.DeepEqual(in, want) {
		t.Errorf("inbound = %+v, %v; want %+v", in, err, want)
	}
	st, err := channels.ParseTwilioStatus(url.Values{"MessageSid": {"SM\x002"}, "MessageStatus": {"fail\x00ed"}, "ErrorCode": {"3\xff0"}})
	if err != nil || st != (channels.StatusUpdate{ProviderID: "SM2", Status: "failed", ErrorCode: "3\uFFFD0", Error: "twilio error 3\uFFFD0"}) {
		t.Errorf("status = %+v, %v", st, err)
	}
	for _, bad := range []url.Values{{"MessageSid": {"\x00"}, "From": {"+34600111222"}}, {"MessageSid": {"SM3"}, "From": {"\x00"}}} {
		if _, err := channels.ParseTwilioInbound(bad); err == nil {
			t.Errorf("inbound %q accepted", bad)
		}
	}
	if _, err := channels.ParseTwilioStatus(url.Values{"MessageSid": {"\x00\x00"}, "MessageStatus": {"sent"}}); err == nil {
		t.Error("a status whose sid is only NUL accepted")
	}
}
