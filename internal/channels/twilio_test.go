package channels_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// fakeTwilio answers POST /2010-04-01/Accounts/{sid}/Messages.json as
// Twilio documents it: HTTP Basic sid:token (401 code 20003 otherwise), form
// To, From and Body required (400 code 21604 / 21603 / 21602), a To that is
// not E.164 is 400 code 21211, and 201 with the Message resource. Numbers
// from the magic table make it answer 429 (code 20429) or 500.
type fakeTwilio struct {
	sid, token string
	mu         sync.Mutex
	got        []url.Values
}

var e164 = regexp.MustCompile(`^(whatsapp:)?\+[1-9]\d{6,14}$`)

func (f *fakeTwilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(status, code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg,
			"more_info": "https://www.twilio.com/docs/errors/" + itoa(code), "status": status})
	}
	if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+f.sid+"/Messages.json" {
		fail(404, 20404, "The requested resource was not found")
		return
	}
	if u, p, ok := r.BasicAuth(); !ok || u != f.sid || p != f.token {
		fail(401, 20003, "Authenticate")
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		fail(400, 20001, "Content-Type must be form encoded")
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(400, 20001, "malformed form")
		return
	}
	to, from, body := r.PostForm.Get("To"), r.PostForm.Get("From"), r.PostForm.Get("Body")
	switch {
	case to == "":
		fail(400, 21604, "A 'To' phone number is required.")
		return
	case from == "":
		fail(400, 21603, "A 'From' phone number is required.")
		return
	case body == "":
		fail(400, 21602, "Message body is required.")
		return
	case !e164.MatchString(to):
		fail(400, 21211, "The 'To' number "+to+" is not a valid phone number.")
		return
	case strings.HasSuffix(to, "4290"):
		fail(429, 20429, "Too Many Requests")
		return
	case strings.HasSuffix(to, "5000"):
		fail(500, 20500, "Internal Server Error")
		return
	}
	f.mu.Lock()
	f.got = append(f.got, r.PostForm)
	f.mu.Unlock()
	var b [16]byte
	rand.Read(b[:])
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"sid": "SM" + hex.EncodeToString(b[:]), "account_sid": f.sid, "to": to, "from": from,
		"body": body, "status": "queued", "num_segments": itoa(channels.Segments(body)), "direction": "outbound-api"})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestTwilioSend(t *testing.T) {
	fake := &fakeTwilio{sid: "AC00000000000000000000000000000001", token: "tok-secret"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	sms := channels.Channel{Key: "sms", Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
		Credentials: map[string]string{"account_sid": fake.sid, "auth_token": fake.token}}
	wa := sms
	wa.Type = channels.TypeWhatsApp
	wrongToken := sms
	wrongToken.Credentials = map[string]string{"account_sid": fake.sid, "auth_token": "nope"}
	p := &channels.Providers{}
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
			fake.mu.Lock()
			last := fake.got[len(fake.got)-1]
			fake.mu.Unlock()
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
