// Package channels is how Frontdesk talks to patients (docs/contract.md, Channels):
// an account's channels and their sealed credentials, routes, consent
// (opt-outs) and quiet hours; the provider clients (Twilio for SMS and
// WhatsApp, Meta's WhatsApp Cloud API, SMTP, a log channel); the providers'
// callback formats and signatures; SMS segment counting; the reply words
// that confirm, decline or opt out.
//
// It sits below the areas that use it: the workspace file maps onto its
// types, and package relay (delivery through the job worker, callbacks into
// chat history) builds on it. It imports no HTTP layer, no file format, and
// none of the areas.
package channels

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Channel types and providers.
const (
	TypeSMS      = "sms"
	TypeWhatsApp = "whatsapp"
	TypeEmail    = "email"
	TypeLog      = "log"

	ProviderTwilio = "twilio"
	ProviderMeta   = "meta"
	ProviderSMTP   = "smtp"
	ProviderLog    = "log"
)

// Channel is one configured channel of an account, with its credentials
// already opened (they are sealed at rest).
type Channel struct {
	ID          int64
	AccountID   int64
	UUID        string
	Key         string
	Type        string
	Provider    string
	From        string
	APIBase     string
	Credentials map[string]string
	Templates   map[string]Template // by message kind
	Active      bool
}

// Template is a provider-side message template (Meta) a message kind maps to.
type Template struct {
	Name     string `json:"name"`
	Language string `json:"language"`
}

// Outgoing is one message to send.
type Outgoing struct {
	Kind    string // the outbox kind (booking_confirmation, seat_offer, …)
	To      string // E.164 phone, or an e-mail address for email channels
	Body    string
	Subject string // email only; a default is used when empty
	// StatusCallback is the URL the provider reports delivery to (Twilio);
	// empty when the server has no public URL.
	StatusCallback string
}

// Result is what a provider answered to an accepted message.
type Result struct {
	ProviderID string
	Segments   int // SMS only; 0 elsewhere
}

// Error is a provider's refusal or a failure to reach it.
type Error struct {
	Status    int    // HTTP status (0: network, SMTP or local failure)
	Code      string // the provider's error code, when it sent one
	Message   string
	Retryable bool // 429, 5xx, network: try again later
	// MaybeSent: no answer came, but the request may have reached the
	// provider (the connection broke, or the time ran out, after it was
	// written): nobody knows whether the message went.
	MaybeSent bool
}

func (e *Error) Error() string {
	s := e.Message
	if e.Code != "" {
		s = e.Code + ": " + s
	}
	if e.Status != 0 {
		s = fmt.Sprintf("%s (HTTP %d)", s, e.Status)
	}
	return s
}

// IsRetryable reports whether err is worth another attempt.
func IsRetryable(err error) bool {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Retryable
	}
	return true // unknown failures: network-like
}

// MaybeSent reports whether err left a message's fate unknown (Error.MaybeSent).
func MaybeSent(err error) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.MaybeSent
}

// Logger receives what the log provider "sends".
type Logger interface {
	Info(msg string, args ...any)
}

// Providers sends through the right provider for a channel. Its zero value
// works (public targets only, SMTP with the system's roots).
type Providers struct {
	// Targets decides which addresses a channel's API address and SMTP
	// host may reach (docs/api-notes.md, "Outbound targets"): every
	// connection of every provider dials through it.
	Targets outbound.Policy
	// Timeout bounds one HTTP call to a provider (default 15 s).
	Timeout time.Duration
	// SMTP lets tests trust their own SMTP server's certificate.
	SMTP SMTPOptions
	Log  Logger
	Now  func() time.Time

	once sync.Once
	hc   *http.Client
}

// client is the providers' one HTTP client: guarded by Targets, no
// redirects, shared so connections to a provider are reused.
func (p *Providers) client() *http.Client {
	p.once.Do(func() {
		timeout := p.Timeout
		if timeout <= 0 {
			timeout = 15 * time.Second
		}
		p.hc = p.Targets.HTTPClient(timeout)
	})
	return p.hc
}

// CheckTargets reports the field of ch that names a target Frontdesk may
// not connect to (its API address; an SMTP channel's host and port), with
// the reason. Every door that saves a channel calls it.
func CheckTargets(ch Channel, p outbound.Policy) (field string, err error) {
	if base := strings.TrimSpace(ch.APIBase); base != "" {
		if err := p.CheckURL(base); err != nil {
			return "api_base", err
		}
	}
	if ch.Provider == ProviderSMTP {
		if host := strings.TrimSpace(ch.Credentials["host"]); host != "" {
			if err := p.CheckHost(host); err != nil {
				return "credentials.host", fmt.Errorf("%q %v", host, err)
			}
		}
		if _, err := smtpPort(ch); err != nil {
			return "credentials.port", err
		}
	}
	return "", nil
}

// transportError is a failure to reach a provider, in words a user may
// see (outbound.Describe) with no secret in them. A refused target is
// permanent: only a new address fixes it.
func transportError(provider string, err error) *Error {
	if errors.Is(err, outbound.ErrNotAllowed) {
		return &Error{Message: outbound.ErrNotAllowed.Error()}
	}
	return &Error{Message: provider + ": " + outbound.Describe(err), Retryable: true, MaybeSent: reachedProvider(err)}
}

// providerError is a provider's refusal as a user may see it: its
// documented error code and message only, cut to outbound.MaxShown
// characters, with every credential of the channel taken out (a service
// that echoes what it was sent must not show the secrets back).
func providerError(ch Channel, provider string, status int, code, message string, retryable bool) *Error {
	secrets := make([]string, 0, len(ch.Credentials)+1)
	for _, v := range ch.Credentials {
		secrets = append(secrets, v)
	}
	if sid, token := ch.Credentials["account_sid"], ch.Credentials["auth_token"]; sid != "" && token != "" {
		secrets = append(secrets, base64.StdEncoding.EncodeToString([]byte(sid+":"+token))) // HTTP Basic, as sent
	}
	for _, v := range secrets {
		if len(v) >= 4 {
			message = strings.ReplaceAll(message, v, "[redacted]")
			code = strings.ReplaceAll(code, v, "[redacted]")
		}
	}
	return &Error{Status: status, Code: outbound.Cut(code, 40), Message: provider + ": " + outbound.Cut(message, outbound.MaxShown), Retryable: retryable}
}

// Send delivers m through ch.
func (p *Providers) Send(ctx context.Context, ch Channel, m Outgoing) (Result, error) {
	if !ch.Active {
		return Result{}, &Error{Message: fmt.Sprintf("channel %q is inactive", ch.Key)}
	}
	switch ch.Provider {
	case ProviderTwilio:
		return sendTwilio(ctx, p.client(), ch, m)
	case ProviderMeta:
		return sendMeta(ctx, p.client(), ch, m)
	case ProviderSMTP:
		return sendSMTP(ctx, p.SMTP, p.Targets, ch, m)
	case ProviderLog:
		return p.sendLog(ch, m), nil
	}
	return Result{}, &Error{Message: fmt.Sprintf("unknown provider %q", ch.Provider)}
}

func (p *Providers) sendLog(ch Channel, m Outgoing) Result {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	// "log-<unix nanoseconds>-<12 hex digits>": unique per channel, like a
	// provider's id.
	id := "log-" + strconv.FormatInt(now().UnixNano(), 10) + "-" + hex.EncodeToString(rnd[:])
	if p.Log != nil {
		// Typed attributes: under a backlog this line is written for every
		// message the demo sends.
		p.Log.Info("channel log: message", slog.String("channel", ch.Key), slog.String("kind", m.Kind), slog.String("to", m.To),
			slog.String("body", m.Body), slog.String("provider_message_id", id))
	}
	res := Result{ProviderID: id}
	if ch.Type == TypeSMS {
		res.Segments = Segments(m.Body)
	}
	return res
}

// Validate checks a channel's shape (the workspace file maps onto it).
// Errors name the field relative to the channel.
func (ch Channel) Validate() (field string, err error) {
	need := func(keys ...string) (string, error) {
		for _, k := range keys {
			if ch.Credentials[k] == "" {
				return "credentials." + k, errs.Say("is required for provider %s", ch.Provider)
			}
		}
		return "", nil
	}
	switch ch.Type {
	case TypeSMS, TypeWhatsApp, TypeEmail, TypeLog:
	default:
		return "type", errs.Say("must be one of sms, whatsapp, email, log")
	}
	ok := map[string][]string{
		TypeSMS:      {ProviderTwilio, ProviderLog},
		TypeWhatsApp: {ProviderTwilio, ProviderMeta, ProviderLog},
		TypeEmail:    {ProviderSMTP, ProviderLog},
		TypeLog:      {ProviderLog},
	}[ch.Type]
	found := false
	for _, p := range ok {
		found = found || p == ch.Provider
	}
	if !found {
		return "provider", errs.Say("a %s channel takes provider %v", ch.Type, ok)
	}
	switch ch.Provider {
	case ProviderTwilio:
		return need("account_sid", "auth_token")
	case ProviderMeta:
		return need("phone_number_id", "access_token", "app_secret", "verify_token")
	case ProviderSMTP:
		return need("host")
	}
	return "", nil
}
