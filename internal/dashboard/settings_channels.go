package dashboard

// Settings › Channels: an account's channels (credentials write-only,
// sealed), and a test message through the provider; owners only and audited.

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
)

// channelView is a channel as the settings page shows it: never its
// credentials (channels.List does not open them), only their names.
type channelView struct {
	Key, Type, Provider, From, APIBase, UUID string
	Active                                   bool
	Templates                                map[string]channels.Template
	Callbacks                                []callbackURL
	Fields                                   []string // the provider's credential names
}

// providerFields are a provider's credential names, for the add form.
type providerFields struct {
	Provider string
	Fields   []string
}

// channelsView is the channels page.
type channelsView struct {
	Channels       []channelView
	Settings       channels.Settings
	Base           string
	Configured     bool // a public URL is configured (else Base is this request's)
	Types          []string
	Providers      []string
	ProviderFields []providerFields
	CanSeal        bool
}

func (channelsView) isPage() {}

// channelsPage handles "GET /app/settings/channels": the account's
// channels, the callback URLs to register at each provider, the messaging
// settings (read-only: the workspace file changes them), and forms to add
// or edit a channel and to send a test message.
func (d *Dashboard) channelsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	list, err := channels.List(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	settings, err := channels.LoadSettings(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	base := d.publicBase(r)
	views := make([]channelView, 0, len(list))
	for _, ch := range list {
		views = append(views, channelView{Key: ch.Key, Type: ch.Type, Provider: ch.Provider, From: ch.From, APIBase: ch.APIBase,
			UUID: ch.UUID, Active: ch.Active, Templates: ch.Templates, Callbacks: callbacks(base, ch), Fields: channels.CredentialFields(ch.Provider)})
	}
	var pf []providerFields
	for _, p := range channels.ProviderNames {
		if f := channels.CredentialFields(p); len(f) > 0 {
			pf = append(pf, providerFields{p, f})
		}
	}
	d.render(w, r, s, http.StatusOK, "channels", "Channels", "channels", channelsView{
		Channels: views, Settings: settings, Base: base, Configured: d.publicURL != "",
		Types: channels.Types, Providers: channels.ProviderNames, ProviderFields: pf, CanSeal: d.secrets.HasKey(),
	})
	return nil
}

// channelEdit reads a channel form; credential inputs are named cred_NAME
// (the add form prefixes them with the provider: cred_PROVIDER_NAME).
func channelEdit(r *http.Request, key, provider string, prefixed bool) channels.Edit {
	e := channels.Edit{Key: key, Type: r.PostForm.Get("type"), Provider: provider, From: r.PostForm.Get("from"),
		APIBase: r.PostForm.Get("api_base"), Active: r.PostForm.Get("active") == "on", Credentials: map[string]string{}}
	for _, f := range channels.CredentialFields(provider) {
		name := "cred_" + f
		if prefixed {
			name = "cred_" + provider + "_" + f
		}
		if v := r.PostForm.Get(name); v != "" {
			e.Credentials[f] = v
		}
	}
	return e
}

// createChannel handles "POST /app/settings/channels".
func (d *Dashboard) createChannel(w http.ResponseWriter, r *http.Request, s *session) error {
	provider := r.PostForm.Get("provider")
	return d.saveChannel(w, r, s, channelEdit(r, r.PostForm.Get("key"), provider, true), true)
}

// updateChannel handles "POST /app/settings/channels/{key}".
func (d *Dashboard) updateChannel(w http.ResponseWriter, r *http.Request, s *session) error {
	cur, err := channels.ByKeyWithoutCredentials(r.Context(), d.db, s.Account, r.PathValue("key"))
	if err != nil {
		return err
	}
	return d.saveChannel(w, r, s, channelEdit(r, cur.Key, cur.Provider, false), false)
}

func (d *Dashboard) saveChannel(w http.ResponseWriter, r *http.Request, s *session, in channels.Edit, create bool) error {
	var saved channels.Channel
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		ch, changed, err := channels.SaveEdit(r.Context(), tx, d.secrets, d.targets, s.Account, in, create, d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		saved = ch
		if create {
			// Names only: the credentials' values never reach the log.
			names := slices.Sorted(maps.Keys(in.Credentials))
			return "created", "channel", ch.Key, ch.Type + " via " + ch.Provider + "; credentials: " + strings.Join(names, ", "), nil
		}
		if len(changed) == 0 {
			return "", "", "", "", nil
		}
		return "updated", "channel", ch.Key, "changed " + strings.Join(changed, ", "), nil
	})
	if err != nil {
		return localize(s, err)
	}
	d.logger(r.Context()).Info("dashboard: channel saved", "account_id", s.Account.ID, "user_id", s.UserID, "channel", saved.Key)
	d.redirect(w, r, Prefix+"settings/channels", "ok", s.Translate("Channel “%s” saved.", saved.Key))
	return nil
}

// testChannel handles "POST /app/settings/channels/{key}/test": one
// message through the provider to the number or address typed, like
// `frontdesk channels test`. The provider's answer is shown; nothing is
// recorded in the outbox.
func (d *Dashboard) testChannel(w http.ResponseWriter, r *http.Request, s *session) error {
	ch, res, err := channels.SendTest(r.Context(), d.db, d.secrets, d.providers, s.Account, r.PathValue("key"), r.PostForm.Get("to"), "")
	var pe *channels.Error
	switch {
	case errors.As(err, &pe):
		d.redirect(w, r, Prefix+"settings/channels", "error", s.Translate("The provider refused the test message: %s", pe.Error()))
		return nil
	case err != nil:
		return localize(s, err)
	}
	d.logger(r.Context()).Info("dashboard: channel test sent", "account_id", s.Account.ID, "channel", ch.Key, "provider_message_id", res.ProviderID)
	d.redirect(w, r, Prefix+"settings/channels", "ok", s.Translate("Test message sent through “%s” (provider id %s).", ch.Key, res.ProviderID))
	return nil
}

// callbackURL is a URL a provider calls back, shown so the clinic can
// register it at the provider.
type callbackURL struct {
	Label string
	URL   string
}

// callbacks are the URLs a channel's provider must call (docs/contract.md, Provider callbacks).
func callbacks(base string, ch channels.Channel) []callbackURL {
	switch ch.Provider {
	case channels.ProviderTwilio:
		return []callbackURL{
			{"Status callback", base + "/hooks/twilio/" + ch.UUID + "/status"},
			{"Incoming messages", base + "/hooks/twilio/" + ch.UUID + "/inbound"},
		}
	case channels.ProviderMeta:
		return []callbackURL{{"Webhook (verify and events)", base + "/hooks/whatsapp/" + ch.UUID}}
	}
	return nil
}

// publicBase is the base URL providers call: the configured public URL,
// else this request's scheme and host.
func (d *Dashboard) publicBase(r *http.Request) string {
	if d.publicURL != "" {
		return strings.TrimRight(d.publicURL, "/")
	}
	scheme := "http"
	if isTLS(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
