package workspace

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// ChannelSpec is a channel in the file (docs/contract.md, Channels). A credential
// value is a string or {env: NAME}, read when the file is applied.
type ChannelSpec struct {
	Key         string                  `yaml:"key"`
	UUID        string                  `yaml:"uuid"`
	Type        string                  `yaml:"type"`
	Provider    string                  `yaml:"provider"`
	From        string                  `yaml:"from"`
	APIBase     string                  `yaml:"api_base"`
	Credentials map[string]any          `yaml:"credentials"`
	Templates   map[string]TemplateSpec `yaml:"templates"`
	Active      *bool                   `yaml:"active"`
	keys        present                 // the keys the file gave
}

// TemplateSpec maps a message kind to a provider template (Meta).
type TemplateSpec struct {
	Name     string `yaml:"name" json:"name"`
	Language string `yaml:"language" json:"language"`
}

// MessagingSpec routes message kinds to channels.
type MessagingSpec struct {
	DefaultChannel string            `yaml:"default_channel"`
	Routes         map[string]string `yaml:"routes"`
	QuietHours     string            `yaml:"quiet_hours"`
	keys           present           // the keys the file gave
}

func (s *ChannelSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain ChannelSpec
	return track(n, (*plain)(s), &s.keys)
}

func (s *MessagingSpec) UnmarshalYAML(n *yaml.Node) error {
	type plain MessagingSpec
	return track(n, (*plain)(s), &s.keys)
}

// MessageKinds are the outbox kinds a route or a template may name.
var MessageKinds = []string{"automation_message", "sequence_message", "booking_confirmation", "booking_reminder", "seat_offer", "channel_reply", "verification_code"}

// Languages of the built-in texts.
var Languages = []string{"es", "en"}

// checkChannels validates the channels and messaging of f (shape and
// references; credentials are resolved at apply time).
func (c *checker) channels(f *File, known *Known) {
	if f.Account.keys.has("language") && f.Account.Language != "" {
		c.oneOf("account.language", f.Account.Language, Languages)
	}
	keys := c.keys("channels", len(f.Channels), func(i int) string { return f.Channels[i].Key })
	keys = union(keys, known.Channels)
	seenUUID := map[string]bool{}
	for i, ch := range f.Channels {
		p := fmt.Sprintf("channels[%d]", i)
		isNew := !known.Channels[ch.Key]
		has := ch.keys.has
		if isNew || has("type") {
			if ch.Type == "" {
				c.addf(p+".type", "is required for a new channel")
			} else {
				c.oneOf(p+".type", ch.Type, []string{channels.TypeSMS, channels.TypeWhatsApp, channels.TypeEmail, channels.TypeLog})
			}
		}
		if isNew || has("provider") {
			if ch.Provider == "" {
				c.addf(p+".provider", "is required for a new channel")
			} else if ch.Type != "" {
				if field, err := (channels.Channel{Type: ch.Type, Provider: ch.Provider}).Validate(); err != nil && field == "provider" {
					c.addf(p+".provider", "%v", err)
				}
			}
		}
		if ch.UUID != "" {
			u := strings.ToLower(ch.UUID)
			if !uuidRE.MatchString(u) {
				c.addf(p+".uuid", "%q is not a UUID", ch.UUID)
			} else if seenUUID[u] {
				c.addf(p+".uuid", "duplicate uuid %q", ch.UUID)
			}
			seenUUID[u] = true
		}
		if ch.APIBase != "" {
			if field, err := channels.CheckTargets(channels.Channel{APIBase: ch.APIBase}, known.Targets); err != nil {
				c.addf(p+"."+field, "%q %v", ch.APIBase, err)
			}
		}
		if ch.From != "" {
			switch ch.Type {
			case channels.TypeSMS, channels.TypeWhatsApp:
				if _, err := phone.ParseWithRegion(ch.From, ""); err != nil {
					c.addf(p+".from", "%q is not an international phone number (+34…)", ch.From)
				}
			case channels.TypeEmail:
				if _, err := mail.ParseAddress(ch.From); err != nil {
					c.addf(p+".from", "%q is not an e-mail address", ch.From)
				}
			}
		} else if isNew && ch.Type != channels.TypeLog && ch.Provider != channels.ProviderLog && ch.Type != "" {
			c.addf(p+".from", "is required for a new %s channel", ch.Type)
		}
		for name, v := range ch.Credentials {
			cp := p + ".credentials." + name
			switch x := v.(type) {
			case string, int, float64, bool:
			case map[string]any:
				env, ok := x["env"].(string)
				if !ok || len(x) != 1 || env == "" {
					c.addf(cp, "must be a value or {env: NAME}")
				}
			default:
				c.addf(cp, "must be a value or {env: NAME}")
			}
		}
		kinds := make([]string, 0, len(ch.Templates))
		for k := range ch.Templates {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			c.oneOf(p+".templates."+k, k, MessageKinds)
			if ch.Templates[k].Name == "" {
				c.addf(p+".templates."+k+".name", "is required")
			}
		}
	}
	m := f.Messaging
	if m == nil {
		return
	}
	if m.DefaultChannel != "" {
		c.ref("messaging.default_channel", m.DefaultChannel, keys, "channel")
	}
	kinds := make([]string, 0, len(m.Routes))
	for k := range m.Routes {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		c.oneOf("messaging.routes."+k, k, MessageKinds)
		c.ref("messaging.routes."+k, m.Routes[k], keys, "channel")
	}
	if m.QuietHours != "" {
		if _, err := channels.ParseQuietHours(m.QuietHours); err != nil {
			c.addf("messaging.quiet_hours", "%q %v", m.QuietHours, err)
		}
	}
}

// resolveCredentials reads every credential value of f's channels, {env:
// NAME} from the environment. A file that gives credentials needs the
// server key (they are stored sealed): without it, or with a variable
// unset, the problems name the path.
func (a *Applier) resolveCredentials(f *File) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	var problems []string
	for i, ch := range f.Channels {
		if !ch.keys.has("credentials") || len(ch.Credentials) == 0 {
			continue
		}
		p := fmt.Sprintf("channels[%d].credentials", i)
		if !a.Secrets.HasKey() {
			problems = append(problems, p+": credentials are stored encrypted: set FRONTDESK_SECRET_KEY (32 bytes, base64 or hex) on the server")
			continue
		}
		creds := map[string]string{}
		for name, v := range ch.Credentials {
			switch x := v.(type) {
			case map[string]any:
				env, _ := x["env"].(string)
				val := ""
				if a.Getenv != nil {
					val = a.Getenv(env)
				}
				if val == "" {
					problems = append(problems, fmt.Sprintf("%s.%s: environment variable %s is not set", p, name, env))
					continue
				}
				creds[name] = val
			default:
				creds[name] = fmt.Sprint(x)
			}
		}
		out[ch.Key] = creds
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &Error{Problems: problems}
	}
	return out, nil
}

// channels applies f's channels: matched by key, only the keys given change.
// Credentials given replace the stored ones as a whole.
func (ap *applier) channels(ctx context.Context) error {
	for i, spec := range ap.f.Channels {
		has := spec.keys.has
		cur, err := channels.ByKey(ctx, ap.tx, ap.box, ap.acct, spec.Key)
		isNew := errs.Is(err, errs.NotFound)
		switch {
		case isNew:
			cur = channels.Channel{Key: spec.Key, Active: true}
		case errors.Is(err, channels.ErrCredentials):
			creds, given := ap.creds[spec.Key]
			if !given {
				return &Error{Problems: []string{fmt.Sprintf("channels[%d].credentials: the stored credentials do not open with this server's FRONTDESK_SECRET_KEY; give them again", i)}}
			}
			if cur, err = channels.ByKeyWithoutCredentials(ctx, ap.tx, ap.acct, spec.Key); err != nil {
				return err
			}
			cur.Credentials = creds
		case err != nil:
			return err
		}
		if has("type") {
			cur.Type = spec.Type
		}
		if has("provider") {
			cur.Provider = spec.Provider
		}
		if has("from") {
			cur.From = spec.From
		}
		if has("api_base") {
			cur.APIBase = spec.APIBase
		}
		if has("active") {
			cur.Active = boolOr(spec.Active, true)
		}
		if has("uuid") && spec.UUID != "" && isNew {
			cur.UUID = spec.UUID
		}
		if has("templates") {
			cur.Templates = map[string]channels.Template{}
			for k, t := range spec.Templates {
				cur.Templates[k] = channels.Template{Name: t.Name, Language: t.Language}
			}
		}
		creds, credsGiven := ap.creds[spec.Key]
		if credsGiven {
			cur.Credentials = creds
		}
		if field, err := cur.Validate(); err != nil {
			return &Error{Problems: []string{fmt.Sprintf("channels[%d].%s: %v", i, field, err)}}
		}
		if credsGiven { // the API address was checked with the file; an SMTP host arrives with the credentials
			if field, err := channels.CheckTargets(channels.Channel{Provider: cur.Provider, Credentials: creds}, ap.targets); err != nil {
				return &Error{Problems: []string{fmt.Sprintf("channels[%d].%s: %v", i, field, err)}}
			}
		}
		_, uuid, err := channels.Save(ctx, ap.tx, ap.box, ap.acct, cur, db.NewUUID(), ap.now)
		if err != nil {
			return err
		}
		ap.res.IDs.Channels[spec.Key] = uuid
	}
	return nil
}

// messaging writes the account's routes and quiet hours (only keys given).
func (ap *applier) messaging(ctx context.Context) error {
	m := ap.f.Messaging
	if m == nil {
		return nil
	}
	cur, err := channels.LoadSettings(ctx, ap.tx, ap.acct)
	if err != nil {
		return err
	}
	if m.keys.has("default_channel") {
		cur.DefaultChannel = m.DefaultChannel
	}
	if m.keys.has("routes") {
		cur.Routes = m.Routes
	}
	if m.keys.has("quiet_hours") {
		cur.QuietHours = m.QuietHours
	}
	text, err := db.JSONText(cur)
	if err != nil {
		return err
	}
	_, err = ap.tx.Exec(ctx, `UPDATE accounts SET messaging = ? WHERE id = ? AND messaging <> ?`, text, ap.acct.ID, text)
	return err
}
