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
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// TestTwoInstancesSendOnce: two `frontdesk serve` child processes on one
// PostgreSQL, both running the job worker with a 20 ms poll, deliver the
// same outbox through an SMS channel pointed at a slow local Twilio (every
// request takes 30 ms, so the two workers' sends overlap). One ingest batch
// of 200 new clients (each gets the stage's message automation) and six
// bookings (each a confirmation request) go in at once; when every message
// is sent, Twilio has accepted exactly one request per outbox message, each
// outbox row holds the sid Twilio answered for its own To and Body, no two
// rows share a provider id, and each message was attempted and billed once.
func TestTwoInstancesSendOnce(t *testing.T) {
	dsn := dbtest.DSN(t, db.Postgres)
	ctx := context.Background()
	const clients, bookings = 200, 6

	twilio := &channelstest.Twilio{SID: "AC00000000000000000000000000000001", Token: twilioToken, Delay: 30 * time.Millisecond}
	fake := httptestServer(t, twilio) // httptest listens on 127.0.0.1
	vars := map[string]string{"FRONTDESK_SECRET_KEY": norteSecret, "NORTE_TWILIO_TOKEN": twilioToken, "NORTE_SMTP_PASSWORD": "smtp-pass",
		outbound.EnvAllowPrivate: "true"} // the fake Twilio listens on loopback
	e := &channelEnv{t: t, dsn: dsn, vars: map[string]string{"FRONTDESK_DB": dsn}, twilio: twilio}
	for k, v := range vars {
		e.vars[k] = v
	}
	tmpl, err := os.ReadFile("testdata/channels.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The mail channel is never used here (sms is the default): any port.
	file := filepath.Join(t.TempDir(), "norte.yaml")
	os.WriteFile(file, []byte(strings.NewReplacer("API_BASE", fake, "SMTP_PORT", "2525").Replace(string(tmpl))), 0o600)
	if code, _, stderr := e.run("workspace", "apply", "-f", file); code != 0 {
		t.Fatalf("apply: %d %s", code, stderr)
	}

	var env []string
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	addrs := []string{freeAddr(t), freeAddr(t)}
	for _, a := range addrs {
		startServeEnv(t, dsn, a, env, "--poll", "20ms", "--public-url", publicBase)
	}
	store, err := db.Open(ctx, dsn, db.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()

	// Everything at once: the ingest batch on one server while the
	// bookings alternate between both.
	start := time.Now()
	rows := make([]map[string]any, clients)
	for i, p := range phoneSet(500, 0, clients) {
		rows[i] = map[string]any{"phone_number": p, "first_name": fmt.Sprintf("Paciente%03d", i)}
	}
	batch, _ := json.Marshal(map[string]any{"clients": rows})
	ingested := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+addrs[0]+"/api/v2/public/leadflow/ingest/"+norteNode+"/batch", bytes.NewReader(batch))
		req.Header.Set("Authorization", "Bearer "+norteKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ingested <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			ingested <- fmt.Sprintf("%d %s", resp.StatusCode, b)
			return
		}
		ingested <- ""
	}()
	for i := 0; i < bookings; i++ {
		on := *e
		on.addr = addrs[i%2]
		on.book(fmt.Sprintf("+346003331%02d", i), fmt.Sprintf("Cita%d", i), "", 10+i)
	}
	if msg := <-ingested; msg != "" {
		t.Fatalf("ingest: %s", msg)
	}

	want := clients + bookings
	// Until at least every expected message is out and no job is left: a
	// duplicate then fails the checks below rather than the wait.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var total, sent, queued int
		store.QueryRow(ctx, `SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'sent') FROM outbox`).Scan(&total, &sent)
		store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE status IN ('pending', 'running')`).Scan(&queued)
		if sent >= want && queued == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 15 s: %d of %d outbox messages sent (%d rows), Twilio accepted %d; jobs: %s",
				sent, want, total, len(twilio.Accepted()), jobStates(store))
		}
	}
	took := time.Since(start)
	// A little longer, for a late duplicate to show.
	time.Sleep(300 * time.Millisecond)

	type row struct {
		id                    int64
		kind, recipient, body string
		provider              string
		attempts              int
	}
	rs, err := store.Query(ctx, `SELECT id, kind, recipient, body, COALESCE(provider_message_id, ''), attempts FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var outbox []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.id, &r.kind, &r.recipient, &r.body, &r.provider, &r.attempts); err != nil {
			t.Fatal(err)
		}
		outbox = append(outbox, r)
	}
	rs.Close()
	kinds := map[string]int{}
	for _, r := range outbox {
		kinds[r.kind]++
	}
	if kinds["automation_message"] != clients || kinds["booking_confirmation"] != bookings || len(outbox) != want {
		// (More rows than messages: a stage-arrival job ran twice.)
		t.Errorf("outbox holds %v, want %d automation messages and %d confirmations", kinds, clients, bookings)
	}

	// Per-message findings: the first 20, then a count.
	findings := 0
	report := func(format string, args ...any) {
		t.Helper()
		if findings++; findings <= 20 {
			t.Errorf(format, args...)
		}
	}
	accepted := twilio.Accepted()
	bySID := map[string]channelstest.TwilioMessage{}
	perMessage := map[string]int{} // To + Body
	for _, m := range accepted {
		if _, dup := bySID[m.SID]; dup {
			report("the fake answered sid %s twice", m.SID)
		}
		bySID[m.SID] = m
		perMessage[m.Form.Get("To")+"\x00"+m.Form.Get("Body")]++
	}
	for k, n := range perMessage {
		if n > 1 {
			report("Twilio got %d requests for %q", n, strings.ReplaceAll(k, "\x00", ": "))
		}
	}
	if len(accepted) != len(outbox) {
		report("Twilio accepted %d messages for %d outbox rows", len(accepted), len(outbox))
	}
	used := map[string]int64{}
	for _, r := range outbox {
		if r.provider == "" {
			report("outbox %d (%s to %s) is sent without a provider id", r.id, r.kind, r.recipient)
			continue
		}
		if other, dup := used[r.provider]; dup {
			report("outbox %d and %d share provider id %s", other, r.id, r.provider)
		}
		used[r.provider] = r.id
		m, ok := bySID[r.provider]
		switch {
		case !ok:
			report("outbox %d holds sid %s, which Twilio never answered", r.id, r.provider)
		case m.Form.Get("To") != r.recipient || m.Form.Get("Body") != r.body:
			report("outbox %d (to %s) holds sid %s, which Twilio gave a message to %s: %q", r.id, r.recipient, r.provider, m.Form.Get("To"), m.Form.Get("Body"))
		}
		if r.attempts != 1 {
			report("outbox %d: %d attempts", r.id, r.attempts)
		}
	}
	for sid, m := range bySID {
		if _, ok := used[sid]; !ok {
			report("Twilio sent %s to %s (%q), which no outbox row records", sid, m.Form.Get("To"), m.Form.Get("Body"))
		}
	}

	if findings > 20 {
		t.Errorf("... and %d more findings like these", findings-20)
	}

	// Each delivery job completed once, and each message was billed once.
	var jobsDone, multiRun, billed int
	store.QueryRow(ctx, `SELECT COUNT(*) FROM jobs WHERE kind = 'deliver_message' AND status = 'done'`).Scan(&jobsDone)
	store.QueryRow(ctx, `SELECT COUNT(*) FROM (SELECT j.id FROM jobs j JOIN job_attempts a ON a.account_id = j.account_id AND a.job_id = j.id
		WHERE j.kind = 'deliver_message' GROUP BY j.id HAVING COUNT(*) > 1) d`).Scan(&multiRun)
	store.QueryRow(ctx, `SELECT COALESCE(SUM(count), 0) FROM usage_counters WHERE metric = 'messages_sent'`).Scan(&billed)
	if jobsDone != want || multiRun != 0 || billed != want {
		t.Errorf("%d delivery jobs done (%d attempted more than once), %d messages billed; want %d, 0, %d", jobsDone, multiRun, billed, want, want)
	}
	// The two workers really sent side by side: each sends one message at
	// a time, so two requests in flight at once came from both.
	if peak := twilio.PeakInFlight(); peak < 2 {
		t.Errorf("the fake Twilio never had two requests at once (peak %d): the workers did not overlap", peak)
	}
	t.Logf("%d messages sent once each through 2 instances in %v; peak %d requests in flight at Twilio",
		len(accepted), took.Round(time.Millisecond), twilio.PeakInFlight())
}
