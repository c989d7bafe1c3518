package channels_test

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Every provider dials through the server's outbound policy: with the
// default one, a channel pointed at loopback is refused before anything is
// sent, permanently, with exactly "target not allowed".
func TestProvidersRefuseTargets(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer srv.Close()
	_, port, pool := channelstest.StartMailbox(t)
	p := &channels.Providers{SMTP: channels.SMTPOptions{TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}, Timeout: 5 * time.Second}}
	for _, ch := range []channels.Channel{
		{Key: "sms", Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
			Credentials: map[string]string{"account_sid": "AC1", "auth_token": "tok"}},
		{Key: "wa", Type: channels.TypeWhatsApp, Provider: channels.ProviderMeta, From: "+34910000002", APIBase: srv.URL, Active: true,
			Credentials: map[string]string{"phone_number_id": "1", "access_token": "tok", "app_secret": "s", "verify_token": "v"}},
		{Key: "mail", Type: channels.TypeEmail, Provider: channels.ProviderSMTP, From: "citas@acme.test", Active: true,
			Credentials: map[string]string{"host": "127.0.0.1", "port": strconv.Itoa(port)}},
	} {
		t.Run(ch.Provider, func(t *testing.T) {
			to := "+34600111222"
			if ch.Type == channels.TypeEmail {
				to = "nora@example.com"
			}
			_, err := p.Send(context.Background(), ch, channels.Outgoing{Kind: "booking_confirmation", To: to, Body: "Hola"})
			if err == nil || err.Error() != "target not allowed" || channels.IsRetryable(err) {
				t.Fatalf("err = %v, want a permanent 'target not allowed'", err)
			}
		})
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("a refused target was reached %d times", n)
	}
}

// What a target answers reaches a user only as the provider's documented
// error code and message, cut to 300 characters, with the channel's
// credentials — as given, and as Twilio's Basic header — taken out.
func TestProviderErrorsShowNoMore(t *testing.T) {
	const sid, token = "AC0123456789", "very-secret-token"
	basic := base64.StdEncoding.EncodeToString([]byte(sid + ":" + token))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		// A service that echoes the request, and says a lot.
		json.NewEncoder(w).Encode(map[string]any{
			"code": 21211, "message": "echo: " + r.Header.Get("Authorization") + " token=" + token + " " + strings.Repeat("x", 1000),
			"secret_field": "internal data",
		})
	}))
	defer srv.Close()
	ch := channels.Channel{Key: "sms", Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
		Credentials: map[string]string{"account_sid": sid, "auth_token": token}}
	p := &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}
	_, err := p.Send(context.Background(), ch, channels.Outgoing{To: "+34600111222", Body: "Hola"})
	var pe *channels.Error
	if !asErr(err, &pe) {
		t.Fatalf("err = %v", err)
	}
	shown := err.Error()
	for _, secret := range []string{token, basic, "internal data"} {
		if strings.Contains(shown, secret) {
			t.Errorf("the error shows %q: %s", secret, shown)
		}
	}
	if pe.Code != "21211" || len([]rune(strings.TrimPrefix(pe.Message, "twilio: "))) != outbound.MaxShown {
		t.Errorf("code %q, message of %d characters", pe.Code, len([]rune(pe.Message)))
	}
}

// CheckTargets is the rule every door that saves a channel calls.
func TestCheckTargets(t *testing.T) {
	for _, test := range []struct {
		name  string
		ch    channels.Channel
		field string // "" allowed by the default policy
	}{
		{"public api", channels.Channel{Provider: channels.ProviderTwilio, APIBase: "https://api.twilio.com"}, ""},
		{"no api base", channels.Channel{Provider: channels.ProviderTwilio}, ""},
		{"metadata api", channels.Channel{Provider: channels.ProviderTwilio, APIBase: "http://169.254.169.254/latest"}, "api_base"},
		{"file scheme", channels.Channel{Provider: channels.ProviderMeta, APIBase: "file:///etc/passwd"}, "api_base"},
		{"gopher scheme", channels.Channel{Provider: channels.ProviderMeta, APIBase: "gopher://x.example/"}, "api_base"},
		{"not a url", channels.Channel{Provider: channels.ProviderMeta, APIBase: "not a url"}, "api_base"},
		{"own admin api", channels.Channel{Provider: channels.ProviderTwilio, APIBase: "http://127.0.0.1:8080/api/v2/admin"}, "api_base"},
		{"public smtp", channels.Channel{Provider: channels.ProviderSMTP, Credentials: map[string]string{"host": "smtp.example.com", "port": "587"}}, ""},
		{"private smtp", channels.Channel{Provider: channels.ProviderSMTP, Credentials: map[string]string{"host": "10.0.0.25"}}, "credentials.host"},
		{"localhost smtp", channels.Channel{Provider: channels.ProviderSMTP, Credentials: map[string]string{"host": "localhost"}}, "credentials.host"},
		{"bad smtp port", channels.Channel{Provider: channels.ProviderSMTP, Credentials: map[string]string{"host": "smtp.example.com", "port": "70000"}}, "credentials.port"},
	} {
		t.Run(test.name, func(t *testing.T) {
			field, err := channels.CheckTargets(test.ch, outbound.Policy{})
			if field != test.field || (err == nil) != (test.field == "") {
				t.Fatalf("field %q, err %v; want %q", field, err, test.field)
			}
		})
	}
}
