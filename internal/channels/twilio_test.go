package channels_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

func TestTwilioSend(t *testing.T) {
	fake := &channelstest.Twilio{SID: "AC00000000000000000000000000000001", Token: "tok-secret"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	sms := channels.Channel{Key: "sms", Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
		Credentials: map[string]string{"account_sid": fake.SID, "auth_token": fake.Token}}
	wa := sms
	wa.Type = channels.TypeWhatsApp
	wrongToken := sms
	wrongToken.Credentials = map[string]string{"account_sid": fake.SID, "auth_token": "nope"}
	p := &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}
	for _, test := range []struct {
		name      string
		ch        channels.Channel
		to, body  string
		wantCode  string
		retryable bool
		wantTo    string
	}{
		{"sms", sms, "+34600111222", "Hola", "", false, "+34600111222"},
		{"whatsapp prefixes both numbers", wa, "+34600111222", "Hola", "", false, "whatsapp:+34600111222"},
		{"invalid number fails at once", sms, "600", "Hola", "21211", false, ""},
		{"wrong token is a 401, not retried", wrongToken, "+34600111222", "Hola", "20003", false, ""},
		{"429 retries", sms, "+34600114290", "Hola", "20429", true, ""},
		{"500 retries", sms, "+34600115000", "Hola", "20500", true, ""},
	} {
		t.Run(test.name, func(t *testing.T) {
			res, err := p.Send(context.Background(), test.ch, channels.Outgoing{Kind: "booking_confirmation", To: test.to, Body: test.body,
				StatusCallback: "https://fd.example/hooks/twilio/u/status"})
			if test.wantCode != "" {
				var pe *channels.Error
				if err == nil || !asErr(err, &pe) || pe.Code != test.wantCode || pe.Retryable != test.retryable {
					t.Fatalf("err = %#v, want code %s retryable %v", err, test.wantCode, test.retryable)
				}
				if strings.Contains(err.Error(), "tok-secret") {
					t.Error("error shows the token")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.ProviderID, "SM") {
				t.Errorf("provider id %q", res.ProviderID)
			}
			sent := fake.Sent()
			last := sent[len(sent)-1]
			if last.Get("To") != test.wantTo || last.Get("Body") != test.body || last.Get("StatusCallback") == "" ||
				!strings.HasSuffix(last.Get("From"), "+34910000001") {
				t.Errorf("form = %v", last)
			}
		})
	}
	// A closed port on loopback: a network failure, retried.
	closed := sms
	closed.APIBase = closedURL(t)
	if _, err := p.Send(context.Background(), closed, channels.Outgoing{To: "+34600111222", Body: "x"}); err == nil || !channels.IsRetryable(err) {
		t.Errorf("closed port: err = %v, want retryable", err)
	}
}

func TestTwilioSignature(t *testing.T) {
	// The example of Twilio's security documentation.
	form := url.Values{"CallSid": {"CA1234567890ABCDE"}, "Caller": {"+14158675310"}, "Digits": {"1234"},
		"From": {"+14158675310"}, "To": {"+18005551212"}}
	const u = "https://mycompany.com/myapp.php?foo=1&bar=2"
	if got := channels.TwilioSignature("12345", u, form); got != "GvWf1cFY/Q7PnoempGyD5oXAezc=" {
		t.Fatalf("signature = %s", got)
	}
	for _, test := range []struct {
		name, token, url, sig string
		form                  url.Values
		want                  bool
	}{
		{"valid", "12345", u, "GvWf1cFY/Q7PnoempGyD5oXAezc=", form, true},
		{"wrong token", "54321", u, "GvWf1cFY/Q7PnoempGyD5oXAezc=", form, false},
		{"other url", "12345", "https://mycompany.com/other", "GvWf1cFY/Q7PnoempGyD5oXAezc=", form, false},
		{"tampered form", "12345", u, "GvWf1cFY/Q7PnoempGyD5oXAezc=", url.Values{"Digits": {"9999"}}, false},
		{"empty signature", "12345", u, "", form, false},
		{"no token configured", "", u, "GvWf1cFY/Q7PnoempGyD5oXAezc=", form, false},
	} {
		t.Run(test.name, func(t *testing.T) {
			if got := channels.VerifyTwilio(test.token, test.url, test.form, test.sig); got != test.want {
				t.Errorf("VerifyTwilio = %v, want %v", got, test.want)
			}
		})
	}
}

func TestParseTwilio(t *testing.T) {
	st, err := channels.ParseTwilioStatus(url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"undelivered"}, "ErrorCode": {"30003"}})
	if err != nil || st.Status != "failed" || st.ErrorCode != "30003" {
		t.Errorf("status = %+v, %v", st, err)
	}
	if st, _ := channels.ParseTwilioStatus(url.Values{"MessageSid": {"SM1"}, "MessageStatus": {"queued"}}); st.Status != "" {
		t.Errorf("queued maps to %q, want no change", st.Status)
	}
	for _, bad := range []url.Values{{}, {"MessageSid": {"SM1"}}, {"MessageStatus": {"sent"}}} {
		if _, err := channels.ParseTwilioStatus(bad); err == nil {
			t.Errorf("status %v accepted", bad)
		}
	}
	in, err := channels.ParseTwilioInbound(url.Values{"MessageSid": {"SM2"}, "From": {"whatsapp:+34600111222"}, "To": {"whatsapp:+34910000001"},
		"Body": {"Sí"}, "NumMedia": {"1"}, "MediaContentType0": {"image/jpeg"}, "MediaUrl0": {"https://api.twilio.com/m/1"}})
	if err != nil || in.From != "+34600111222" || in.To != "+34910000001" || in.Body != "Sí" || len(in.Media) != 1 || in.Media[0].Kind != "image" {
		t.Errorf("inbound = %+v, %v", in, err)
	}
	for _, bad := range []url.Values{{"From": {"+34600111222"}}, {"MessageSid": {"SM3"}}, {"MessageSid": {"SM3"}, "From": {"+1"}, "NumMedia": {"99"}}} {
		if _, err := channels.ParseTwilioInbound(bad); err == nil {
			t.Errorf("inbound %v accepted", bad)
		}
	}
}
