package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// The crash trial of README "Channels": `frontdesk serve` sends 200
// messages through a provider that takes 50 ms a message, is killed with
// SIGKILL while sends are under way (8 of them in the provider's hands),
// and is started again. Through Twilio every message arrives exactly once:
// the ones the killed process had handed over are found in Twilio's list
// and recorded, not sent again. Through Meta, which cannot be asked, they
// are sent again and marked possible_duplicate (every message Meta got
// twice is marked; a marked one may have arrived once, when the killed
// process died before its request left). Nothing is lost, and the
// restarted server takes over the dead one's claimed jobs in seconds (its
// heartbeat goes stale), not after their 5-minute lease.
func TestCrashMidSend(t *testing.T) {
	for _, provider := range []string{"twilio", "meta"} {
		for _, e := range []db.Engine{db.SQLite, db.Postgres} {
			t.Run(provider+"/"+string(e), func(t *testing.T) { crashMidSend(t, e, provider) })
		}
	}
}

// crashSendFlags make a dead worker's jobs free 2 s after its last beat and
// a cut-off call settle 2 s after it started (the defaults are 15 s and
// 20 s), so the trial takes seconds.
var crashSendFlags = []string{"--poll", "20ms", "--worker-heartbeat", "250ms", "--worker-stale", "2s", "--send-timeout", "2s"}

const crashMessages = 200

func crashMidSend(t *testing.T, engine db.Engine, provider string) {
	dsn := dbtest.DSN(t, engine)
	ctx := context.Background()
	twilio := &channelstest.Twilio{SID: "AC00000000000000000000000000000001", Token: twilioToken, Delay: 50 * time.Millisecond,
		QueuedFor: time.Minute} // still queued (no date_sent) when looked up
	meta := &channelstest.Meta{PhoneID: "1234567890", Token: "meta-access-token", Delay: 50 * time.Millisecond}
	var handler http.Handler = twilio
	if provider == "meta" {
		handler = meta
	}
	fake := httptestServer(t, handler)
	vars := map[string]string{"FRONTDESK_SECRET_KEY": norteSecret, "NORTE_TWILIO_TOKEN": twilioToken, "NORTE_SMTP_PASSWORD": "smtp-pass",
		// Outbound targets on loopback (the fake) are allowed explicitly.
		"FRONTDESK_ALLOW_PRIVATE_TARGETS": "true"}
	e := &channelEnv{t: t, dsn: dsn, vars: map[string]string{"FRONTDESK_DB": dsn}}
	for k, v := range vars {
		e.vars[k] = v
	}
	tmpl, err := os.ReadFile("testdata/channels.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.NewReplacer("API_BASE", fake, "SMTP_PORT", "2525").Replace(string(tmpl))
	if provider == "meta" {
		ws = strings.Replace(ws, "messaging: {default_channel: sms}", `  - key: wa
    type: whatsapp
    provider: meta
    from: "+34910000002"
    api_base: "`+fake+`"
    credentials: {phone_number_id: "1234567890", access_token: meta-access-token, app_secret: meta-app-secret, verify_token: meta-verify}
messaging: {default_channel: wa}`, 1)
	}
	file := filepath.Join(t.TempDir(), "norte.yaml")
	os.WriteFile(file, []byte(ws), 0o600)
	if code, _, stderr := e.run("workspace", "apply", "-f", file); code != 0 {
		t.Fatalf("apply: %d %s", code, stderr)
	}
	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	store, err := db.Open(ctx, dsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	// What reached the provider, by recipient and text.
	received := func() map[string]int {
		out := map[string]int{}
		if provider == "meta" {
			for _, m := range meta.Sent() {
				txt, _ := m["text"].(map[string]any)
				out[fmt.Sprint("+", m["to"], "\x00", txt["body"])]++
			}
			return out
		}
		for _, m := range twilio.Sent() {
			out[m.Get("To")+"\x00"+m.Get("Body")]++
		}
		return out
	}
	total := func() (n int) {
		for _, c := range received() {
			n += c
		}
		return n
	}

	// 200 new clients through the API: the stage's automation queues a
	// message for each, and the worker starts sending.
	addr := freeAddr(t)
	child := startServeEnv(t, dsn, addr, env, crashSendFlags...)
	rows := make([]map[string]any, crashMessages)
	for i, p := range phoneSet(620, 0, crashMessages) {
		rows[i] = map[string]any{"phone_number": p, "first_name": fmt.Sprintf("Paciente%03d", i)}
	}
	batch, _ := json.Marshal(map[string]any{"clients": rows})
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/v2/public/leadflow/ingest/"+norteNode+"/batch", bytes.NewReader(batch))
	req.Header.Set("Authorization", "Bearer "+norteKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("ingest: %d %s", resp.StatusCode, body)
	}

	// Kill it once sends are under way.
	for deadline := time.Now().Add(20 * time.Second); total() < 40; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("sends never got under way: %d received; jobs %s", total(), jobStates(store))
		}
	}
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	time.Sleep(100 * time.Millisecond) // the requests the provider was working on land
	atKill := total()

	restart := time.Now()
	startServeEnv(t, dsn, freeAddr(t), env, crashSendFlags...)
	var resumed time.Duration
	for deadline := restart.Add(40 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resumed == 0 && total() > atKill {
			resumed = time.Since(restart)
		}
		var sent, queued int
		store.QueryRow(ctx, `SELECT COUNT(*) FROM outbox WHERE status = 'sent'`).Scan(&sent)
		store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE status IN ('pending', 'running') AND kind = 'deliver_message'`).Scan(&queued)
		if sent == crashMessages && queued == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("40 s after the restart: %d of %d messages sent, %d received by the provider (%d at the kill); jobs %s",
				sent, crashMessages, total(), atKill, jobStates(store))
		}
	}
	if resumed == 0 || resumed > 20*time.Second {
		t.Errorf("sends resumed %v after the restart, want within 20 s", resumed)
	}
	time.Sleep(300 * time.Millisecond) // for a late duplicate to show

	// Each message went out, once through Twilio; through Meta the
	// messages resent are exactly the ones marked.
	var outbox []outboxRow
	if code, out, stderr := e.run("outbox", "list", "--account", "norte", "--json", "--limit", "1000"); code != 0 {
		t.Fatalf("outbox list: %s", stderr)
	} else if err := json.Unmarshal([]byte(out), &outbox); err != nil {
		t.Fatal(err)
	}
	got := received()
	findings, marked := 0, 0
	report := func(format string, args ...any) {
		t.Helper()
		if findings++; findings <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, r := range outbox {
		n := got[r.Recipient+"\x00"+r.Body]
		if r.PossibleDuplicate {
			marked++
		}
		switch {
		case r.Status != "sent":
			report("outbox %d to %s is %s", r.ID, r.Recipient, r.Status)
		case n == 0:
			report("outbox %d to %s is sent, but the provider never got it", r.ID, r.Recipient)
		case provider == "twilio" && (n != 1 || r.PossibleDuplicate):
			report("Twilio got %d requests for outbox %d to %s (possible_duplicate %v)", n, r.ID, r.Recipient, r.PossibleDuplicate)
		case provider == "meta" && (n > 2 || (n == 2 && !r.PossibleDuplicate)):
			// Marked and received once is right too: the killed process
			// had started the attempt, but its request never got there.
			report("Meta got %d requests for outbox %d to %s, marked possible_duplicate %v", n, r.ID, r.Recipient, r.PossibleDuplicate)
		}
	}
	if len(outbox) != crashMessages {
		report("the outbox holds %d messages, want %d", len(outbox), crashMessages)
	}
	// The kill did land mid-send: messages were in the provider's hands.
	switch {
	case provider == "twilio" && twilio.Lists() == 0:
		report("Twilio was never asked about a message in doubt: the kill caught no send under way")
	case provider == "meta" && marked == 0:
		report("no message was resent: the kill caught no send under way")
	}
	t.Logf("%s on %s: killed after %d messages, sends resumed %v after the restart; Twilio asked %d times, %d resent and marked possible_duplicate",
		provider, engine, atKill, resumed.Round(time.Millisecond), twilio.Lists(), marked)
}
