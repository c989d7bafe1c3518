package channels_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// mailbox is a real SMTP server (emersion/go-smtp) on loopback with
// STARTTLS and PLAIN auth; it records what it accepted and whether the
// session was encrypted when the mail came in.
type mailbox struct {
	user, pass string
	mu         sync.Mutex
	mails      []received
}

type received struct {
	from string
	to   []string
	data string
	tls  bool
}

func (m *mailbox) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &mailSession{box: m, conn: c}, nil
}

type mailSession struct {
	box  *mailbox
	conn *smtp.Conn
	auth bool
	cur  received
}

func (s *mailSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *mailSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.box.user || pass != s.box.pass {
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
	_, s.cur.tls = s.conn.TLSConnectionState()
	s.cur.from = from
	return nil
}

func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if strings.HasPrefix(to, "nobody@") {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user"}
	}
	s.cur.to = append(s.cur.to, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.data = string(b)
	s.box.mu.Lock()
	s.box.mails = append(s.box.mails, s.cur)
	s.box.mu.Unlock()
	return nil
}

func (s *mailSession) Reset()        { s.cur = received{} }
func (s *mailSession) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
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
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// startMailbox serves SMTP with STARTTLS on a loopback port.
func startMailbox(t *testing.T) (*mailbox, int, *x509.CertPool) {
	t.Helper()
	box := &mailbox{user: "citas", pass: "smtp-pass"}
	cert, pool := selfSigned(t)
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

func TestSMTPSend(t *testing.T) {
	box, port, pool := startMailbox(t)
	ch := channels.Channel{Key: "mail", Type: channels.TypeEmail, Provider: channels.ProviderSMTP, From: "citas@acme.test", Active: true,
		Credentials: map[string]string{"host": "127.0.0.1", "port": strconv.Itoa(port), "username": "citas", "password": "smtp-pass"}}
	p := &channels.Providers{SMTP: channels.SMTPOptions{TLSConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}, Timeout: 5 * time.Second}}
	res, err := p.Send(context.Background(), ch, channels.Outgoing{Kind: "booking_confirmation", To: "nora@example.com", Body: "¿Confirmas tu cita? Responde SÍ o NO."})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.ProviderID, "@acme.test") {
		t.Errorf("provider id %q", res.ProviderID)
	}
	box.mu.Lock()
	got := box.mails
	box.mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("server received %d mails", len(got))
	}
	m := got[0]
	if !m.tls {
		t.Error("mail was not sent over STARTTLS")
	}
	if m.from != "citas@acme.test" || len(m.to) != 1 || m.to[0] != "nora@example.com" {
		t.Errorf("envelope %s -> %v", m.from, m.to)
	}
	if !strings.Contains(m.data, "Message-ID: <"+res.ProviderID+">") || !strings.Contains(m.data, "Subject:") {
		t.Errorf("headers: %s", m.data)
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
