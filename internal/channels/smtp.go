package channels

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/frontdesk/frontdesk/internal/outbound"
)

// SMTPOptions tune the SMTP provider; the zero value is production's.
type SMTPOptions struct {
	// TLSConfig is used for STARTTLS (tests trust their own server's
	// certificate through RootCAs). nil: the system's roots, ServerName = host.
	TLSConfig *tls.Config
	Timeout   time.Duration
}

// defaultSubjects are used when a message has no subject of its own.
var defaultSubjects = map[string]string{
	"booking_confirmation": "Tu cita / Your appointment",
	"booking_reminder":     "Recordatorio de cita / Appointment reminder",
	"seat_offer":           "Hueco disponible / A slot is available",
}

// sendSMTP sends a plain-text mail: STARTTLS when the server offers it
// (go-mail's opportunistic policy), SMTP AUTH when a username is set. The
// Message-ID, generated here under the sender's domain, is the provider id.
func sendSMTP(ctx context.Context, o SMTPOptions, targets outbound.Policy, ch Channel, m Outgoing) (Result, error) {
	host := ch.Credentials["host"]
	port, err := smtpPort(ch)
	if err != nil {
		return Result{}, &Error{Message: "smtp: " + err.Error()}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.TLSConfig != nil {
		tlsConf = o.TLSConfig.Clone()
	}
	if tlsConf.ServerName == "" {
		tlsConf.ServerName = host // the certificate must name the host the channel dials
	}
	opts := []mail.Option{mail.WithPort(port), mail.WithTimeout(timeout), mail.WithTLSPolicy(mail.TLSOpportunistic), mail.WithTLSConfig(tlsConf),
		mail.WithDialContextFunc(targets.DialContext(timeout))}
	if user := ch.Credentials["username"]; user != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(user), mail.WithPassword(ch.Credentials["password"]))
	}
	c, err := mail.NewClient(host, opts...)
	if err != nil {
		return Result{}, &Error{Message: "smtp: " + err.Error()}
	}
	msg := mail.NewMsg()
	if err := msg.From(ch.From); err != nil {
		return Result{}, &Error{Message: "smtp: from address: " + err.Error()}
	}
	if err := msg.To(m.To); err != nil {
		return Result{}, &Error{Message: "smtp: recipient address: " + err.Error()}
	}
	subject := m.Subject
	if subject == "" {
		subject = defaultSubjects[m.Kind]
	}
	if subject == "" {
		subject = "Mensaje / Message"
	}
	msg.Subject(subject)
	msg.SetDate()
	var rnd [12]byte
	rand.Read(rnd[:])
	domain := "frontdesk.local"
	if at := strings.LastIndexByte(ch.From, '@'); at >= 0 {
		domain = strings.Trim(ch.From[at+1:], "> ")
	}
	id := hex.EncodeToString(rnd[:]) + "@" + domain
	msg.SetMessageIDWithValue(id)
	msg.SetBodyString(mail.TypeTextPlain, m.Body)
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return Result{}, smtpError(ch, err)
	}
	return Result{ProviderID: id}, nil
}

// smtpPort is the channel's SMTP port (default 587).
func smtpPort(ch Channel) (int, error) {
	p := strings.TrimSpace(ch.Credentials["port"])
	if p == "" {
		return 587, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port must be 1..65535")
	}
	return n, nil
}

// smtpError is a failed send as a user may see it: the server's reply code
// and text (cut, no credentials) when it answered, else only whether it
// could be reached (outbound.Describe). A 5xx reply is permanent (a bad
// login, an unknown recipient); everything else is tried again.
func smtpError(ch Channel, err error) *Error {
	var te *textproto.Error // an SMTP reply: the server did not take the message
	if errors.As(err, &te) {
		return providerError(ch, "smtp", 0, strconv.Itoa(te.Code), te.Msg, te.Code < 500)
	}
	var se *mail.SendError
	if errors.As(err, &se) {
		code := ""
		if se.ErrorCode() != 0 {
			code = strconv.Itoa(se.ErrorCode())
		}
		e := providerError(ch, "smtp", 0, code, se.Reason.String(), se.IsTemp() || se.ErrorCode() == 0)
		// Without a reply code the connection broke mid-conversation: the
		// server may have taken the message.
		e.MaybeSent = se.ErrorCode() == 0 && reachedProvider(err)
		return e
	}
	return transportError("smtp", err)
}
