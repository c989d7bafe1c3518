package channels_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Lookup asks Twilio's Messages list whether a message in doubt is there:
// found while still queued (no date_sent yet), not found when only other
// texts, other numbers or an identical text from before the attempt are
// there, found on a later page, and an unanswered question is an error
// (nothing known), never "not found".
func TestTwilioLookup(t *testing.T) {
	const sid, token = "AC00000000000000000000000000000001", "tok-secret"
	p := &channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}
	start := time.Now().UTC().Truncate(time.Second)
	for _, test := range []struct {
		name       string
		whatsapp   bool
		seed       func(f *channelstest.Twilio, to, from string)
		send       bool // the attempt reached Twilio
		listStatus int
		want       int  // matches found
		wantErr    bool // nothing known
		minLists   int  // list requests at least (paging)
	}{
		{name: "sent, still queued (no date_sent)", send: true, want: 1, minLists: 1},
		{name: "whatsapp numbers carry the scheme", whatsapp: true, send: true, want: 1, minLists: 1},
		{name: "never reached Twilio", want: 0, minLists: 1},
		{name: "the same text to the same number a day before is another message", seed: func(f *channelstest.Twilio, to, from string) {
			f.Seed(channelstest.TwilioMessage{Form: url.Values{"To": {to}, "From": {from}, "Body": {"Su cita es mañana"}}, Created: start.Add(-24 * time.Hour)})
		}, want: 0},
		{name: "other texts and numbers do not match", seed: func(f *channelstest.Twilio, to, from string) {
			f.Seed(channelstest.TwilioMessage{Form: url.Values{"To": {to}, "From": {from}, "Body": {"Otro texto"}}, Created: start},
				channelstest.TwilioMessage{Form: url.Values{"To": {"+34600999888"}, "From": {from}, "Body": {"Su cita es mañana"}}, Created: start})
		}, want: 0},
		{name: "on the third page", send: true, seed: func(f *channelstest.Twilio, to, from string) {
			// 2,100 newer messages of the same thread come first (the list
			// is newest first, 1,000 a page).
			var ms []channelstest.TwilioMessage
			for i := 0; i < 2100; i++ {
				ms = append(ms, channelstest.TwilioMessage{Form: url.Values{"To": {to}, "From": {from}, "Body": {fmt.Sprint("Aviso ", i)}},
					Created: start.Add(time.Hour + time.Duration(i)*time.Second)})
			}
			f.Seed(ms...)
		}, want: 1, minLists: 3},
		{name: "an outage is an error, not a no", send: true, listStatus: 503, wantErr: true},
	} {
		t.Run(test.name, func(t *testing.T) {
			fake := &channelstest.Twilio{SID: sid, Token: token, QueuedFor: time.Hour}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			ch := channels.Channel{Key: "sms", Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
				Credentials: map[string]string{"account_sid": sid, "auth_token": token}}
			to, from := "+34600111222", "+34910000001"
			if test.whatsapp {
				ch.Type, to, from = channels.TypeWhatsApp, "whatsapp:"+to, "whatsapp:"+from
			}
			m := channels.Outgoing{Kind: "booking_reminder", To: "+34600111222", Body: "Su cita es mañana"}
			if test.seed != nil {
				test.seed(fake, to, from)
			}
			var sentSID string
			if test.send {
				res, err := p.Send(context.Background(), ch, m)
				if err != nil {
					t.Fatal(err)
				}
				sentSID = res.ProviderID
			}
			fake.ListStatus = test.listStatus
			got, err := p.Lookup(context.Background(), ch, m, start)
			if test.wantErr {
				if err == nil || !channels.IsRetryable(err) || strings.Contains(err.Error(), token) {
					t.Fatalf("err = %v, want a retryable error without the token", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != test.want {
				t.Fatalf("found %+v, want %d", got, test.want)
			}
			segments := 1 // SMS only
			if test.whatsapp {
				segments = 0
			}
			if test.want == 1 && (got[0].ProviderID != sentSID || got[0].Segments != segments) {
				t.Errorf("found %+v, want sid %s with %d segments", got[0], sentSID, segments)
			}
			if n := fake.Lists(); n < test.minLists {
				t.Errorf("%d list requests, want at least %d", n, test.minLists)
			}
		})
	}
}

// Two copies of one text (two attempts both reached Twilio): both are
// returned, oldest first, so the caller can tell them apart.
func TestTwilioLookupOldestFirst(t *testing.T) {
	fake := &channelstest.Twilio{SID: "AC1", Token: "t"}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	now := time.Now().UTC().Truncate(time.Second)
	form := url.Values{"To": {"+34600111222"}, "From": {"+34910000001"}, "Body": {"Hola"}}
	fake.Seed(channelstest.TwilioMessage{SID: "SMnewer", Form: form, Created: now.Add(time.Second)},
		channelstest.TwilioMessage{SID: "SMolder", Form: form, Created: now})
	ch := channels.Channel{Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
		Credentials: map[string]string{"account_sid": "AC1", "auth_token": "t"}}
	got, err := (&channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}).Lookup(context.Background(), ch, channels.Outgoing{To: "+34600111222", Body: "Hola"}, now)
	if err != nil || len(got) != 2 || got[0].ProviderID != "SMolder" || got[1].ProviderID != "SMnewer" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

// A next_page_uri that leaves the API host is not followed: the
// credentials would go with it.
func TestTwilioLookupStaysOnHost(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"messages": [], "next_page_uri": "//evil.test/steal"}`)
	}))
	defer srv.Close()
	ch := channels.Channel{Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", APIBase: srv.URL, Active: true,
		Credentials: map[string]string{"account_sid": "AC1", "auth_token": "t"}}
	if _, err := (&channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}).Lookup(context.Background(), ch, channels.Outgoing{To: "+34600111222", Body: "Hola"}, time.Now()); err == nil || hits != 1 {
		t.Fatalf("err = %v after %d requests, want an error after 1", err, hits)
	}
}

// Providers that cannot be asked say so; the relay resends and marks.
func TestLookupUnsupported(t *testing.T) {
	for _, provider := range []string{channels.ProviderMeta, channels.ProviderSMTP, channels.ProviderLog} {
		_, err := (&channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}).Lookup(context.Background(), channels.Channel{Provider: provider, Active: true}, channels.Outgoing{}, time.Now())
		if !errors.Is(err, channels.ErrNoLookup) {
			t.Errorf("%s: err = %v, want ErrNoLookup", provider, err)
		}
	}
}

// A send whose connection breaks after the request went out leaves the
// message's fate unknown; one that could not connect does not.
func TestSendMaybeSent(t *testing.T) {
	ch := channels.Channel{Type: channels.TypeSMS, Provider: channels.ProviderTwilio, From: "+34910000001", Active: true,
		Credentials: map[string]string{"account_sid": "AC1", "auth_token": "t"}}
	ch.APIBase = closedURL(t)
	_, err := (&channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}).Send(context.Background(), ch, channels.Outgoing{To: "+34600111222", Body: "x"})
	if err == nil || channels.MaybeSent(err) {
		t.Errorf("closed port: err = %v, want a failure that did not reach Twilio", err)
	}
	// A server that reads the request and hangs up without answering.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			c.Read(buf)
			c.Close()
		}
	}()
	ch.APIBase = "http://" + l.Addr().String()
	_, err = (&channels.Providers{Targets: outbound.Policy{AllowPrivate: true}}).Send(context.Background(), ch, channels.Outgoing{To: "+34600111222", Body: "x"})
	if err == nil || !channels.MaybeSent(err) || !channels.IsRetryable(err) {
		t.Errorf("hang-up: err = %v, want a retryable failure that may have reached Twilio", err)
	}
}
