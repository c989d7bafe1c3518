package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/channels/channelstest"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

const (
	norteKey     = "pk_test_norte_channels_0123456789"
	norteSMS     = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"
	norteNode    = "3f6a1e52-8c1d-4b7e-a2f0-5d9c8b7a6e01"
	twilioToken  = "twilio-auth-token-of-norte"
	publicBase   = "https://fd.example"
	norteSecret  = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	patientPhone = "+34600222333"
)

// channelEnv is a server process's environment for the channels test.
type channelEnv struct {
	t      *testing.T
	dsn    string
	vars   map[string]string
	addr   string
	twilio *channelstest.Twilio
	mail   *channelstest.Mailbox
}

// env is the commands' environment: e.vars, and private targets allowed
// (the fake providers listen on loopback) unless vars say otherwise.
func (e *channelEnv) env(stdout, stderr io.Writer) *Env {
	getenv := func(k string) string {
		if v, ok := e.vars[k]; ok || k != outbound.EnvAllowPrivate {
			return v
		}
		return "true"
	}
	return &Env{Getenv: getenv, Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Clock: clock.System{}}
}

func (e *channelEnv) run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, e.env(&out, &errb))
	return code, out.String(), errb.String()
}

func (e *channelEnv) do(method, path, contentType, body string, header map[string]string) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest(method, "http://"+e.addr+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if strings.HasPrefix(path, "/api/") {
		req.Header.Set("Authorization", "Bearer "+norteKey)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// twilioPost posts a Twilio callback form, signed as Twilio signs it for
// the public URL unless sign is false.
func (e *channelEnv) twilioPost(kind string, form url.Values, sign bool) (int, string) {
	path := "/hooks/twilio/" + norteSMS + "/" + kind
	h := map[string]string{}
	if sign {
		h["X-Twilio-Signature"] = channels.TwilioSignature(twilioToken, publicBase+path, form)
	}
	return e.do("POST", path, "application/x-www-form-urlencoded", form.Encode(), h)
}

type outboxRow struct {
	ID                int64   `json:"id"`
	Kind              string  `json:"kind"`
	Channel           string  `json:"channel"`
	Recipient         string  `json:"recipient"`
	Body              string  `json:"body"`
	Status            string  `json:"status"`
	ChannelKey        *string `json:"channel_key"`
	ProviderMessageID *string `json:"provider_message_id"`
	Error             *string `json:"error"`
	DeliveredAt       *string `json:"delivered_at"`
	Segments          *int    `json:"segments"`
	PossibleDuplicate bool    `json:"possible_duplicate"`
}

func (e *channelEnv) outbox() []outboxRow {
	e.t.Helper()
	code, out, stderr := e.run("outbox", "list", "--account", "norte", "--json")
	if code != 0 {
		e.t.Fatalf("outbox list: %d %s", code, stderr)
	}
	var rows []outboxRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		e.t.Fatalf("outbox list --json: %v\n%s", err, out)
	}
	return rows
}

// waitFor polls until cond holds (the worker polls every 50 ms).
func (e *channelEnv) waitFor(what string, cond func() bool) {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	rows := e.outbox()
	for _, r := range rows {
		if r.Error != nil {
			e.t.Logf("outbox %d %s: %s", r.ID, r.Status, *r.Error)
		}
	}
	e.t.Fatalf("timed out waiting for %s; outbox: %+v", what, rows)
}

func (e *channelEnv) find(kind, recipient string, statuses ...string) *outboxRow {
	for _, r := range e.outbox() {
		if r.Kind != kind || r.Recipient != recipient {
			continue
		}
		for _, s := range statuses {
			if r.Status == s {
				r := r
				return &r
			}
		}
	}
	return nil
}

func nextWeekday(loc *time.Location) time.Time {
	d := time.Now().In(loc).AddDate(0, 0, 2)
	for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

func (e *channelEnv) book(phone, first, email string, hour int) {
	e.t.Helper()
	day := nextWeekday(time.UTC).Format("2006-01-02")
	body, _ := json.Marshal(map[string]any{
		"client":       map[string]any{"phone": phone, "first_name": first, "last_name": "Prueba", "email": email},
		"service_name": "Limpieza dental", "professional_name": "Dra. Ruiz", "event_type_name": "Presencial",
		"start_at": day + "T" + strconv.Itoa(hour) + ":00:00", "end_at": day + "T" + strconv.Itoa(hour) + ":30:00", "timezone": "Europe/Madrid",
	})
	if code, out := e.do("POST", "/api/v2/public/calendar/events", "application/json", string(body), nil); code != 200 && code != 201 {
		e.t.Fatalf("booking: %d %s", code, out)
	}
}

// TestChannelsEndToEnd runs serve as a clinic would: a booking's
// confirmation reaches a (local) Twilio, its delivery report and the
// patient's answer come back signed, the conversation shows the exchange,
// STOP suppresses the next automation and START lets it through, and an
// e-mail channel delivers to a real SMTP server.
func TestChannelsEndToEnd(t *testing.T) {
	for _, engine := range []db.Engine{db.SQLite, db.Postgres} {
		t.Run(string(engine), func(t *testing.T) {
			e := startNorte(t, engine, "")
			// 1. A booking's confirmation request goes to Twilio as a form.
			e.book(patientPhone, "Nora", "", 10)
			e.waitFor("the confirmation at Twilio", func() bool { return len(e.twilio.Sent()) >= 1 })
			form := e.twilio.Sent()[0]
			if form.Get("To") != patientPhone || form.Get("From") != "+34910000001" || !strings.Contains(form.Get("Body"), "¿confirmas") ||
				form.Get("StatusCallback") != publicBase+"/hooks/twilio/"+norteSMS+"/status" {
				t.Fatalf("Twilio got %v", form)
			}
			var conf *outboxRow
			e.waitFor("the outbox to say sent", func() bool { conf = e.find("booking_confirmation", patientPhone, "sent"); return conf != nil })
			if conf.ProviderMessageID == nil || !strings.HasPrefix(*conf.ProviderMessageID, "SM") || conf.ChannelKey == nil || *conf.ChannelKey != "sms" ||
				conf.Segments == nil || *conf.Segments < 1 || conf.Channel != "sms" {
				t.Fatalf("outbox row %+v", conf)
			}
			sid := *conf.ProviderMessageID

			// 2. Delivery reports: unsigned 403 and nothing changes; signed moves it.
			report := url.Values{"MessageSid": {sid}, "MessageStatus": {"delivered"}, "AccountSid": {e.twilio.SID}}
			if code, _ := e.twilioPost("status", report, false); code != 403 {
				t.Fatalf("unsigned status callback: %d", code)
			}
			if r := e.find("booking_confirmation", patientPhone, "sent"); r == nil {
				t.Fatal("an unsigned callback changed the outbox")
			}
			if code, body := e.twilioPost("status", report, true); code != 204 {
				t.Fatalf("signed status callback: %d %s", code, body)
			}
			if r := e.find("booking_confirmation", patientPhone, "delivered"); r == nil || r.DeliveredAt == nil {
				t.Fatalf("after delivered: %+v", e.outbox())
			}
			if code, _ := e.do("POST", "/hooks/twilio/00000000-0000-4000-8000-000000000000/status", "application/x-www-form-urlencoded", report.Encode(), nil); code != 404 {
				t.Errorf("unknown channel: %d", code)
			}

			// 3. The patient answers; the conversation shows both sides.
			in := url.Values{"MessageSid": {"SMin000000000000000000000000000001"}, "From": {patientPhone}, "To": {"+34910000001"},
				"Body": {"¿Puedo llevar a mi hijo?"}, "NumMedia": {"0"}}
			for i := 0; i < 2; i++ { // Twilio retries: the second changes nothing
				if code, body := e.twilioPost("inbound", in, true); code != 200 || !strings.Contains(body, "<Response>") {
					t.Fatalf("inbound: %d %s", code, body)
				}
			}
			code, body := e.do("GET", "/api/v2/public/chat/conversations?search=600222333&include_messages=true", "", "", nil)
			if code != 200 {
				t.Fatalf("conversations: %d %s", code, body)
			}
			var page struct {
				Data []struct {
					SessionID int64 `json:"session_id"`
					Client    *struct {
						ID int64 `json:"id"`
					} `json:"client"`
					Messages []struct {
						SenderType string `json:"sender_type"`
						Content    string `json:"content"`
					} `json:"messages"`
				} `json:"data"`
			}
			json.Unmarshal([]byte(body), &page)
			if len(page.Data) != 1 || page.Data[0].Client == nil || len(page.Data[0].Messages) != 2 ||
				page.Data[0].Messages[0].SenderType != "human" || !strings.Contains(page.Data[0].Messages[0].Content, "¿confirmas") ||
				page.Data[0].Messages[1].SenderType != "customer" || page.Data[0].Messages[1].Content != "¿Puedo llevar a mi hijo?" {
				t.Fatalf("conversation: %s", body)
			}

			// 4. STOP: answered once; the next automation is suppressed. START: delivered again.
			stop := url.Values{"MessageSid": {"SMin000000000000000000000000000002"}, "From": {patientPhone}, "Body": {"STOP"}, "NumMedia": {"0"}}
			if code, _ := e.twilioPost("inbound", stop, true); code != 200 {
				t.Fatalf("STOP: %d", code)
			}
			e.waitFor("the opt-out answer", func() bool { return e.find("channel_reply", patientPhone, "sent", "delivered") != nil })
			ingest := `{"clients": [{"phone_number": "` + patientPhone + `", "first_name": "Nora"}]}`
			if code, body := e.do("POST", "/api/v2/public/leadflow/ingest/"+norteNode+"/batch", "application/json", ingest, nil); code != 200 {
				t.Fatalf("ingest: %d %s", code, body)
			}
			var suppressed *outboxRow
			e.waitFor("the automation to be suppressed", func() bool {
				suppressed = e.find("automation_message", patientPhone, "suppressed")
				return suppressed != nil
			})
			if suppressed.Error == nil || !strings.Contains(*suppressed.Error, "opted out") {
				t.Errorf("suppressed without a reason: %+v", suppressed)
			}
			before := len(e.twilio.Sent())
			start := url.Values{"MessageSid": {"SMin000000000000000000000000000003"}, "From": {patientPhone}, "Body": {"START"}, "NumMedia": {"0"}}
			if code, _ := e.twilioPost("inbound", start, true); code != 200 {
				t.Fatalf("START: %d", code)
			}
			// Off the pipeline and back on: the automation runs again.
			var clientID int64
			if page.Data[0].Client != nil {
				clientID = page.Data[0].Client.ID
			}
			e.do("POST", "/api/v2/public/leadflow/pipelines/1/clients/remove", "application/json", `{"client_ids": [`+strconv.FormatInt(clientID, 10)+`]}`, nil)
			if code, body := e.do("POST", "/api/v2/public/leadflow/ingest/"+norteNode+"/batch", "application/json", ingest, nil); code != 200 {
				t.Fatalf("ingest again: %d %s", code, body)
			}
			e.waitFor("the automation to be sent after START", func() bool { return e.find("automation_message", patientPhone, "sent") != nil })
			if len(e.twilio.Sent()) < before+2 { // the opt-in answer and the automation
				t.Errorf("Twilio got %d messages after START, want 2 more", len(e.twilio.Sent())-before)
			}

			// `frontdesk channels test` sends one real message and prints the
			// provider's answer, never the credentials.
			before = len(e.twilio.Sent())
			code, out, stderr := e.run("channels", "test", "--account", "norte", "--channel", "sms", "--to", "+34600222999", "--body", "Prueba")
			if code != 0 || !strings.Contains(out, `"status":"sent"`) || !strings.Contains(out, `"provider_message_id":"SM`) ||
				strings.Contains(out+stderr, twilioToken) || len(e.twilio.Sent()) != before+1 {
				t.Fatalf("channels test: %d %s %s", code, out, stderr)
			}
			if code, out, _ := e.run("channels", "test", "--account", "norte", "--channel", "sms", "--to", "600"); code != 1 || !strings.Contains(out, "21211") {
				t.Errorf("channels test to a bad number: %d %s", code, out)
			}

			// 5. E-mail: confirmations routed to the SMTP channel reach a real server over STARTTLS.
			route := filepath.Join(t.TempDir(), "route.yaml")
			os.WriteFile(route, []byte("account: {slug: norte}\nmessaging: {routes: {booking_confirmation: mail}}\n"), 0o600)
			if code, _, stderr := e.run("workspace", "apply", "-f", route); code != 0 {
				t.Fatalf("route apply: %s", stderr)
			}
			e.book("+34600222444", "Iker", "iker@example.com", 12)
			e.waitFor("the mail", func() bool { return len(e.mail.Mails()) == 1 })
			m := e.mail.Mails()[0]
			if !m.TLS || m.To[0] != "iker@example.com" || !strings.Contains(m.Data, "Iker") {
				t.Fatalf("mail %+v", m)
			}
			// The server has the mail before the worker records it as sent.
			e.waitFor("the mail's outbox row", func() bool { return e.find("booking_confirmation", "+34600222444", "sent") != nil })
			if r := e.find("booking_confirmation", "+34600222444", "sent"); r.ChannelKey == nil || *r.ChannelKey != "mail" {
				t.Fatalf("mail outbox row: %+v", e.outbox())
			}
		})
	}
}

func httptestServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// startNorte applies the norte fixture (SMS through a local fake Twilio,
// e-mail through a real SMTP server) on a fresh database of engine, and
// runs serve on it in-process until the test ends.
// extra, when not empty, is a partial workspace file applied over it first.
func startNorte(t *testing.T, engine db.Engine, extra string) *channelEnv {
	t.Helper()
	e := &channelEnv{t: t, dsn: dbtest.DSN(t, engine)}
	e.twilio = &channelstest.Twilio{SID: "AC00000000000000000000000000000001", Token: twilioToken}
	fake := httptestServer(t, e.twilio)
	var port int
	e.mail, port, _ = channelstest.StartMailbox(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, e.mail.CertPEM, 0o600)
	e.vars = map[string]string{"FRONTDESK_DB": e.dsn, "FRONTDESK_SECRET_KEY": norteSecret,
		"NORTE_TWILIO_TOKEN": twilioToken, "NORTE_SMTP_PASSWORD": "smtp-pass", "FRONTDESK_SMTP_CA_FILE": ca}
	tmpl, _ := os.ReadFile("testdata/channels.yaml")
	file := filepath.Join(t.TempDir(), "norte.yaml")
	os.WriteFile(file, []byte(strings.NewReplacer("API_BASE", fake, "SMTP_PORT", strconv.Itoa(port)).Replace(string(tmpl))), 0o600)

	// Without the server key, credentials are refused, naming the path.
	noKey := &channelEnv{t: t, vars: map[string]string{"FRONTDESK_DB": e.dsn, "NORTE_TWILIO_TOKEN": "x", "NORTE_SMTP_PASSWORD": "y"}}
	if code, _, stderr := noKey.run("workspace", "apply", "-f", file); code == 0 || !strings.Contains(stderr, "channels[0].credentials") {
		t.Fatalf("apply without FRONTDESK_SECRET_KEY: %d %s", code, stderr)
	}
	code, out, stderr := e.run("workspace", "apply", "-f", file)
	if code != 0 {
		t.Fatalf("apply: %d %s", code, stderr)
	}
	if strings.Contains(out+stderr, twilioToken) || !strings.Contains(out, norteSMS) {
		t.Fatalf("apply output shows a credential or misses ids.channels: %s", out)
	}
	if extra != "" {
		partial := filepath.Join(t.TempDir(), "extra.yaml")
		os.WriteFile(partial, []byte("account: {slug: norte}\n"+extra), 0o600)
		if code, _, stderr := e.run("workspace", "apply", "-f", partial); code != 0 {
			t.Fatalf("partial apply: %d %s", code, stderr)
		}
	}

	var stop func() int
	e.addr, stop = serveInProcess(t, e.env(io.Discard, io.Discard), "--poll", "50ms", "--public-url", publicBase)
	t.Cleanup(func() { stop() })
	return e
}
