// Package channelstest holds local stand-ins for the message providers, for
// tests: HTTP servers that check what Twilio and Meta check (path, auth,
// form or JSON fields) and answer as their documentation says, errors
// included, and a real SMTP server (emersion/go-smtp) with STARTTLS and AUTH.
package channelstest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Meta answers POST /v21.0/{phone_number_id}/messages as the Cloud API
// documents: Bearer token (401, Graph code 190 otherwise), a JSON body with
// messaging_product "whatsapp", to, and type text (text.body) or template
// (template.name, template.language.code) — 400 code 100 otherwise — and 200
// {messaging_product, contacts, messages: [{id}]}. Recipients ending in 4290
// get 400 code 130429 (throughput: retry), in 5000 a 500.
type Meta struct {
	PhoneID, Token string
	// Delay, when set, is how long every request takes; a request whose
	// client went away meanwhile still counts, as it would at Meta.
	Delay time.Duration
	mu    sync.Mutex
	got   []map[string]any
}

func (f *Meta) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The request is read whole first: a sender that dies while the
	// provider works on its request has still sent it.
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if f.Delay > 0 {
		time.Sleep(f.Delay)
	}
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
