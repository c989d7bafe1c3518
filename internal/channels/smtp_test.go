package channels_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

func TestSMTPSend(t *testing.T) {
	box, port, pool := channelstest.StartMailbox(t)
	ch := channels.Channel{Key: "mail", Type: channels.TypeEmail, Provider: channels.ProviderSMTP, From: "citas@acme.test", Active: true,
		Credentials: map[string]string{"host": "127.0.0.1", "port": strconv.Itoa(port), "username": "citas", "password": "smtp-pass"}}
	p := &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}, SMTP: channels.SMTPOptions{TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}, Timeout: 5 * time.Second}}
	res, err := p.Send(context.Background(), ch, channels.Outgoing{Kind: "booking_confirmation", To: "nora@example.com", Body: "¿Confirmas tu cita? Responde SÍ o NO."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.ProviderID, "@acme.test") {
		t.Errorf("provider id %q", res.ProviderID)
	}
	got := box.Mails()
	if len(got) != 1 {
		t.Fatalf("server received %d mails", len(got))
	}
	m := got[0]
	if !m.TLS {
		t.Error("mail was not sent over STARTTLS")
	}
	if m.From != "citas@acme.test" || len(m.To) != 1 || m.To[0] != "nora@example.com" {
		t.Errorf("envelope %s -> %v", m.From, m.To)
	}
	if !strings.Contains(m.Data, "Message-ID: <"+res.ProviderID+">") || !strings.Contains(m.Data, "Subject:") {
		t.Errorf("headers: %s", m.Data)
	}

	for _, test := range []struct {
		name      string
		mutate    func(*channels.Channel)
		to        string
		retryable bool
	}{
		{"wrong password: permanent", func(c *channels.Channel) { c.Credentials["password"] = "nope" }, "nora@example.com", false},
		{"unknown recipient: permanent", func(c *channels.Channel) {}, "nobody@example.com", false},
		{"closed port: retried", func(c *channels.Channel) { c.Credentials["port"] = closedPort(t) }, "nora@example.com", true},
	} {
		t.Run(test.name, func(t *testing.T) {
			c := ch
			c.Credentials = map[string]string{}
			for k, v := range ch.Credentials {
				c.Credentials[k] = v
			}
			test.mutate(&c)
			_, err := p.Send(context.Background(), c, channels.Outgoing{To: test.to, Body: "x"})
			var pe *channels.Error
			if !errors.As(err, &pe) || pe.Retryable != test.retryable {
				t.Fatalf("err = %v, want retryable %v", err, test.retryable)
			}
			if strings.Contains(err.Error(), "smtp-pass") {
				t.Error("error shows the password")
			}
		})
	}
}

func closedPort(t *testing.T) string {
	u := closedURL(t)
	return u[strings.LastIndexByte(u, ':')+1:]
}
