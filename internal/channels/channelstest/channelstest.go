// Package channelstest holds local stand-ins for the message providers, for
// tests: HTTP servers that check what Twilio and Meta check (path, auth,
// form or JSON fields) and answer as their documentation says, errors
// included, and a real SMTP server (emersion/go-smtp) with STARTTLS and AUTH.
package channelstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// Twilio answers POST /2010-04-01/Accounts/{sid}/Messages.json as
// Twilio documents it: HTTP Basic sid:token (401 code 20003 otherwise), form
// To, From and Body required (400 code 21604 / 21603 / 21602), a To that is
// not E.164 is 400 code 21211, and 201 with the Message resource. Numbers
// from the magic table make it answer 429 (code 20429) or 500.
type Twilio struct {
	SID, Token string
	// Delay, when set, is how long every request takes (a real provider
	// answers in tens of milliseconds), so that senders working side by
	// side overlap.
	Delay    time.Duration
	mu       sync.Mutex
	got      []url.Values
	accepted []TwilioMessage
	inFlight int
	peak     int
}

// TwilioMessage is a message the fake Twilio accepted: the form it got and
// the sid it answered with.
type TwilioMessage struct {
	SID  string
	Form url.Values
}

var e164 = regexp.MustCompile(`^(whatsapp:)?\+[1-9]\d{6,14}$`)

func (f *Twilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.inFlight++
	f.peak = max(f.peak, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.Delay > 0 {
		time.Sleep(f.Delay)
	}
	fail := func(status, code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg,
			"more_info": "https://www.twilio.com/docs/errors/" + itoa(code), "status": status})
	}
	if r.Method != http.MethodPost || r.URL.Path != "/2010-04-01/Accounts/"+f.SID+"/Messages.json" {
		fail(404, 20404, "The requested resource was not found")
		return
	}
	if u, p, ok := r.BasicAuth(); !ok || u != f.SID || p != f.Token {
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
	var b [16]byte
	rand.Read(b[:])
	sid := "SM" + hex.EncodeToString(b[:])
	f.mu.Lock()
	f.got = append(f.got, r.PostForm)
	f.accepted = append(f.accepted, TwilioMessage{SID: sid, Form: r.PostForm})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"sid": sid, "account_sid": f.SID, "to": to, "from": from,
		"body": body, "status": "queued", "num_segments": itoa(channels.Segments(body)), "direction": "outbound-api"})
}

// Sent returns the forms of the messages accepted so far.
func (f *Twilio) Sent() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.got...)
}

// Accepted returns the messages accepted so far with the sids they got.
func (f *Twilio) Accepted() []TwilioMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]TwilioMessage(nil), f.accepted...)
}

// PeakInFlight is the most requests the fake was answering at once.
func (f *Twilio) PeakInFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.peak
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Meta answers POST /v21.0/{phone_number_id}/messages as the Cloud API
// documents: Bearer token (401, Graph code 190 otherwise), a JSON body with
// messaging_product "whatsapp", to, and type text (text.body) or template
// (template.name, template.language.code) — 400 code 100 otherwise — and 200
// {messaging_product, contacts, messages: [{id}]}. Recipients ending in 4290
// get 400 code 130429 (throughput: retry), in 5000 a 500.
type Meta struct {
	PhoneID, Token string
	mu             sync.Mutex
	got            []map[string]any
}

func (f *Meta) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(status, code int, msg, typ string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "fbtrace_id": "AbCdEf"}})
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v21.0/"+f.PhoneID+"/messages" {
		fail(400, 100, "Unsupported post request.", "GraphMethodException")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.Token {
		fail(401, 190, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["messaging_product"] != "whatsapp" {
		fail(400, 100, "(#100) The parameter messaging_product is required.", "OAuthException")
		return
	}
	to, _ := body["to"].(string)
	switch {
	case to == "" || strings.HasPrefix(to, "+"):
		fail(400, 100, "(#100) Invalid parameter", "OAuthException")
		return
	case strings.HasSuffix(to, "4290"):
		fail(400, 130429, "(#130429) Rate limit hit", "OAuthException")
		return
	case strings.HasSuffix(to, "5000"):
		fail(500, 1, "An unknown error occurred", "OAuthException")
		return
	}
	switch body["type"] {
	case "text":
		if txt, _ := body["text"].(map[string]any); txt == nil || txt["body"] == "" {
			fail(400, 100, "(#100) The parameter text['body'] is required.", "OAuthException")
			return
		}
	case "template":
		tpl, _ := body["template"].(map[string]any)
		lang, _ := tpl["language"].(map[string]any)
		if tpl == nil || tpl["name"] == "" || lang == nil || lang["code"] == "" {
			fail(400, 132001, "(#132001) Template name does not exist in the translation", "OAuthException")
			return
		}
	default:
		fail(400, 100, "(#100) Param type is invalid", "OAuthException")
		return
	}
	f.mu.Lock()
	f.got = append(f.got, body)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"messaging_product": "whatsapp",
		"contacts": []any{map[string]any{"input": to, "wa_id": to}}, "messages": []any{map[string]any{"id": "wamid.HBgL" + to}}})
}

// Sent returns the JSON bodies of the messages accepted so far.
func (f *Meta) Sent() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.got...)
}

// Mailbox is a real SMTP server (emersion/go-smtp) on loopback with
// STARTTLS and PLAIN auth; it records what it accepted and whether the
// session was encrypted when the mail came in.
type Mailbox struct {
	User, Pass string
	// CertPEM is the server's self-signed certificate, for clients to trust.
	CertPEM []byte
	mu      sync.Mutex
	mails   []Received
}

type Received struct {
	From string
	To   []string
	Data string
	TLS  bool
}

func (m *Mailbox) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &mailSession{box: m, conn: c}, nil
}

type mailSession struct {
	box  *Mailbox
	conn *smtp.Conn
	auth bool
	cur  Received
}

func (s *mailSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *mailSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.box.User || pass != s.box.Pass {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication credentials invalid"}
		}
		s.auth = true
		return nil
	}), nil
}

func (s *mailSession) Mail(from string, _ *smtp.MailOptions) error {
	if !s.auth {
		return smtp.ErrAuthRequired
	}
	_, s.cur.TLS = s.conn.TLSConnectionState()
	s.cur.From = from
	return nil
}

func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if strings.HasPrefix(to, "nobody@") {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}
	}
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = string(b)
	s.box.mu.Lock()
	s.box.mails = append(s.box.mails, s.cur)
	s.box.mu.Unlock()
	return nil
}

func (s *mailSession) Reset()        { s.cur = Received{} }
func (s *mailSession) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
}

// StartMailbox serves SMTP with STARTTLS on a loopback port.
func StartMailbox(t testing.TB) (*Mailbox, int, *x509.CertPool) {
	t.Helper()
	box := &Mailbox{User: "citas", Pass: "smtp-pass"}
	cert, pool := selfSigned(t)
	box.CertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]})
	s := smtp.NewServer(box)
	s.Domain = "127.0.0.1"
	s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.ReadTimeout, s.WriteTimeout = 5*time.Second, 5*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(func() { s.Close() })
	return box, l.Addr().(*net.TCPAddr).Port, pool
}

// Mails returns what the server accepted so far.
func (m *Mailbox) Mails() []Received {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Received(nil), m.mails...)
}
