package channels_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// The log channel "sends" by writing the message to the server's log: one
// line per message with what a provider would have been given, and an id
// unique per message, like a provider's.
func TestLogChannelWritesTheMessage(t *testing.T) {
	var buf bytes.Buffer
	at := time.Date(2026, 11, 30, 9, 0, 0, 123, time.UTC)
	p := &channels.Providers{Log: slog.New(slog.NewJSONHandler(&buf, nil)), Now: func() time.Time { return at }}
	ch := channels.Channel{Key: "demo-log", Type: channels.TypeLog, Provider: channels.ProviderLog, Active: true}
	ids := map[string]bool{}
	for _, m := range []channels.Outgoing{
		{Kind: "automation", To: "+34600000001", Body: "Hola, Ana"},
		{Kind: "automation", To: "+34600000001", Body: "Hola, Ana"},
	} {
		buf.Reset()
		res, err := p.Send(context.Background(), ch, m)
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^log-1796029200000000123-[0-9a-f]{12}$`).MatchString(res.ProviderID) {
			t.Errorf("provider id %q, want log-<unix nanoseconds>-<12 hex digits>", res.ProviderID)
		}
		ids[res.ProviderID] = true
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("log line %q: %v", buf.String(), err)
		}
		want := map[string]any{"msg": "channel log: message", "channel": "demo-log", "kind": m.Kind, "to": m.To, "body": m.Body,
			"provider_message_id": res.ProviderID}
		for k, v := range want {
			if line[k] != v {
				t.Errorf("log line %s = %v, want %v (%s)", k, line[k], v, buf.String())
			}
		}
	}
	if len(ids) != 2 {
		t.Errorf("two messages at the same instant share a provider id: %v", ids)
	}
}
