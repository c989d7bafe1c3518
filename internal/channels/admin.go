package channels

// Channels as the dashboard's settings edit them, and the test message
// that `frontdesk channels test` and the channels page both send.
// Credentials are write-only: a form gives new values, an empty field keeps
// the stored one, and nothing here returns them to a page.

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// CredentialFields lists the credentials a provider takes, in form order.
func CredentialFields(provider string) []string {
	switch provider {
	case ProviderTwilio:
		return []string{"account_sid", "auth_token"}
	case ProviderMeta:
		return []string{"phone_number_id", "access_token", "app_secret", "verify_token"}
	case ProviderSMTP:
		return []string{"host", "port", "username", "password"}
	}
	return nil
}

// Types lists the channel types and Providers the providers, in form order.
var (
	Types         = []string{TypeSMS, TypeWhatsApp, TypeEmail, TypeLog}
	ProviderNames = []string{ProviderTwilio, ProviderMeta, ProviderSMTP, ProviderLog}
)

// Edit is a channel as a settings form gives it. Credentials holds only the
// values the form filled in: a missing or empty one keeps the stored value.
type Edit struct {
	Key, Type, Provider, From, APIBase string
	Active                             bool
	Credentials                        map[string]string
}

var channelKey = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,49}$`)

// SaveEdit creates (create true) or updates one of acct's channels from a
// settings form and returns the names of the fields that changed
// (credentials as "credentials.NAME", never their values). Credentials
// are sealed with box: a server without FRONTDESK_SECRET_KEY refuses to
// store any. An unknown key on update is NOT_FOUND; a taken key on create
// is refused.
//
// targets is the server's outbound policy: an API address or SMTP host it
// does not allow is refused here (CheckTargets), as in the workspace file.
func SaveEdit(ctx context.Context, tx *db.Tx, box *secrets.Box, targets outbound.Policy, acct account.Account, in Edit, create bool, now time.Time) (Channel, []string, error) {
	in.Key, in.From, in.APIBase = strings.TrimSpace(in.Key), strings.TrimSpace(in.From), strings.TrimSpace(in.APIBase)
	var cur Channel
	exists := false
	if c, err := ByKeyWithoutCredentials(ctx, tx, acct, in.Key); err == nil {
		cur, exists = c, true
	} else if e, ok := err.(*errs.Error); !ok || e.Code != errs.NotFound {
		return Channel{}, nil, err
	}
	switch {
	case create && exists:
		return Channel{}, nil, errs.New(errs.ValidationError, "A channel with this key already exists.")
	case create && !channelKey.MatchString(in.Key):
		return Channel{}, nil, errs.New(errs.ValidationError, "A channel key has 1 to 50 lower-case letters, digits, - or _.")
	case !create && !exists:
		return Channel{}, nil, errs.New(errs.NotFound, "no channel %q", in.Key)
	}
	if len(in.From) > 255 || len(in.APIBase) > 500 {
		return Channel{}, nil, errs.New(errs.ValidationError, "The sender or API address is too long.")
	}
	ch := Channel{Key: in.Key, Type: in.Type, Provider: in.Provider, From: in.From, APIBase: in.APIBase, Active: in.Active, Credentials: map[string]string{}}
	if exists {
		// The type and provider of a channel stay: another provider is
		// another channel.
		ch.Type, ch.Provider, ch.Templates, ch.UUID = cur.Type, cur.Provider, cur.Templates, cur.UUID
		stored, err := ByKey(ctx, tx, box, acct, in.Key)
		switch {
		case err == nil:
			ch.Credentials = stored.Credentials
		case err == ErrCredentials:
			// Unreadable: the form must give them all again.
		default:
			return Channel{}, nil, err
		}
	}
	allowed := CredentialFields(ch.Provider)
	var changed []string
	for name, v := range in.Credentials {
		v = strings.TrimSpace(v)
		if v == "" || !slices.Contains(allowed, name) {
			continue
		}
		if len(v) > 1000 {
			return Channel{}, nil, errs.New(errs.ValidationError, "A credential may have at most 1000 characters.")
		}
		if ch.Credentials[name] != v {
			changed = append(changed, "credentials."+name)
		}
		ch.Credentials[name] = v
	}
	slices.Sort(changed)
	if field, err := ch.Validate(); err != nil {
		return Channel{}, nil, errs.New(errs.ValidationError, "%s %s", field, err)
	}
	if field, err := CheckTargets(ch, targets); err != nil {
		return Channel{}, nil, errs.WithDetails(errs.ValidationError, map[string]any{"field": field, "reason": err.Error()},
			"%s", targetRefusals[field])
	}
	if len(ch.Credentials) > 0 && !box.HasKey() {
		return Channel{}, nil, errs.New(errs.ValidationError, "This server has no %s: it cannot store channel credentials. Set it and restart the server.", secrets.EnvKey)
	}
	for _, f := range []struct {
		name     string
		old, new any
	}{{"from", cur.From, ch.From}, {"api_base", cur.APIBase, ch.APIBase}, {"active", cur.Active, ch.Active}} {
		if exists && f.old != f.new {
			changed = append(changed, f.name)
		}
	}
	id, uuid, err := Save(ctx, tx, box, acct, ch, db.NewUUID(), now)
	if err != nil {
		return Channel{}, nil, err
	}
	ch.ID, ch.UUID, ch.Credentials = id, uuid, nil
	return ch, changed, nil
}

// targetRefusals are the settings form's words for CheckTargets' fields
// (fixed sentences, so the dashboard's catalogue translates them).
var targetRefusals = map[string]errs.Text{
	"api_base":         errs.Say("The API address must be a public http or https address."),
	"credentials.host": errs.Say("The SMTP host must be a public host name or address."),
	"credentials.port": errs.Say("The SMTP port must be a number from 1 to 65535."),
}

// TestMessageBody is the text of a test message unless another is given.
const TestMessageBody = "Frontdesk: mensaje de prueba / test message"

// SendTest sends one message through one of acct's channels to a number
// or address the owner gives, and returns the provider's answer. The
// provider's refusal comes back as its *Error (never the credentials).
func SendTest(ctx context.Context, q db.Querier, box *secrets.Box, p *Providers, acct account.Account, key, to, body string) (Channel, Result, error) {
	to = strings.TrimSpace(to)
	if to == "" || len(to) > 255 {
		return Channel{}, Result{}, errs.New(errs.ValidationError, "Enter a phone number (+34…) or an e-mail address to send the test to.")
	}
	if body == "" {
		body = TestMessageBody
	}
	ch, err := ByKey(ctx, q, box, acct, key)
	if err != nil {
		return Channel{}, Result{}, err
	}
	res, err := p.Send(ctx, ch, Outgoing{Kind: "channel_test", To: to, Body: body})
	ch.Credentials = nil
	return ch, res, err
}
