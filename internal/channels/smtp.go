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
func sendSMTP(ctx context.Context, o SMTPOptions, ch Channel, m Outgoing) (Result, error) {
	host := ch.Credentials["host"]
	port := 587
	if p := ch.Credentials["port"]; p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Result{}, &Error{Message: "smtp: port must be 1..65535"}
		}
		port = n
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
	opts := []mail.Option{mail.WithPort(port), mail.WithTimeout(timeout), mail.WithTLSPolicy(mail.TLSOpportunistic), mail.WithTLSConfig(tlsConf)}
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
		pw := ch.Credentials["password"]
		var se *mail.SendError
		retry := true
		var te *textproto.Error
		answered := false // the server replied with a code: it did not take the message
		switch {
		case errors.As(err, &te): // an SMTP reply: 5xx is permanent (bad login, unknown user)
			retry, answered = te.Code < 500, true
		case errors.As(err, &se):
			retry, answered = se.IsTemp() || se.ErrorCode() == 0, se.ErrorCode() != 0
		}
		return Result{}, &Error{Message: fmt.Sprintf("smtp: %s", redact(err.Error(), pw)), Retryable: retry, MaybeSent: !answered && reachedProvider(err)}
	}
	return Result{ProviderID: id}, nil
}
