package dashboard

// Settings (owners only): notifications, webhooks, team and invitations,
// the audit log, and the settings index that links every settings page
// (issue 22, part 5). Every change is written to the audit log in the
// change's transaction; summaries name what changed, never a secret.
// Invitations are accepted signed out, at /app/invite/{token}; each user
// picks their own language at /app/settings/me.

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/password"
)

// teamRoutes registers this part's pages and actions.
func (d *Dashboard) teamRoutes() {
	d.ownerPage("GET "+Prefix+"settings", d.settingsIndex)
	d.ownerPage("GET "+Prefix+"settings/{$}", d.settingsIndex)

	d.ownerPage("GET "+Prefix+"settings/notifications", d.notificationsPage)
	d.ownerAction("POST "+Prefix+"settings/notifications", d.saveNotifications)

	d.ownerPage("GET "+Prefix+"settings/webhooks", d.webhooksPage)
	d.ownerAction("POST "+Prefix+"settings/webhooks", d.createWebhook)
	d.ownerPage("GET "+Prefix+"settings/webhooks/{webhook_id}", d.webhookPage)
	d.ownerAction("POST "+Prefix+"settings/webhooks/{webhook_id}/active", d.toggleWebhook)
	d.ownerAction("POST "+Prefix+"settings/webhooks/{webhook_id}/delete", d.deleteWebhook)

	d.ownerPage("GET "+Prefix+"settings/team", d.teamPage)
	d.ownerAction("POST "+Prefix+"settings/team/invitations", d.invite)
	d.ownerAction("POST "+Prefix+"settings/team/invitations/{invitation_id}/withdraw", d.withdrawInvitation)
	d.ownerAction("POST "+Prefix+"settings/team/{user_id}/role", d.changeRole)
	d.ownerAction("POST "+Prefix+"settings/team/{user_id}/active", d.toggleMember)

	d.ownerPage("GET "+Prefix+"settings/audit", d.auditPage)

	// GET settings/channels is registered with the wave-1 pages.
	d.ownerAction("POST "+Prefix+"settings/channels", d.createChannel)
	d.ownerAction("POST "+Prefix+"settings/channels/{key}", d.updateChannel)
	d.ownerAction("POST "+Prefix+"settings/channels/{key}/test", d.testChannel)

	// Every user's own preferences, owner or staff.
	d.page("GET "+Prefix+"settings/me", d.mePage)
	d.action("POST "+Prefix+"settings/me", d.saveMe)

	// Signed out: the invitation's link.
	d.mux.HandleFunc("GET "+Prefix+"invite/{token}", d.invitePage)
	d.mux.HandleFunc("POST "+Prefix+"invite/{token}", d.acceptInvite)
}

// audited runs change in a transaction and writes the audit entry it
// describes in the same transaction: a refused change leaves no entry.
func (d *Dashboard) audited(ctx context.Context, s *session, change func(tx *db.Tx) (action, objectType, objectID, summary string, err error)) error {
	return d.db.Transact(ctx, func(tx *db.Tx) error {
		action, objectType, objectID, summary, err := change(tx)
		if err != nil || action == "" {
			return err
		}
		return audit.Record(ctx, tx, s.Account, audit.Actor{UserID: s.UserID, UserName: s.UserName}, action, objectType, objectID, summary, d.clock.Now())
	})
}

// localized puts an area's refusal into the user's language when its
// words are a registered text (refusals with values in them stay English).
func localized(s *session, err error) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ValidationError {
		if _, ok := spanish[e.Message]; ok {
			return errs.New(errs.ValidationError, "%s", s.T(e.Message))
		}
	}
	return err
}

// settingsIndex handles "GET /app/settings".
func (d *Dashboard) settingsIndex(w http.ResponseWriter, r *http.Request, s *session) error {
	d.render(w, r, s, http.StatusOK, "settings_index", "Settings", "settings", nil)
	return nil
}

// --- Notifications -------------------------------------------------------

// notificationsPage handles "GET /app/settings/notifications".
func (d *Dashboard) notificationsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	set, err := jobs.LoadNotificationSettings(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_notifications", "Notifications", "settings", map[string]any{
		"Settings": set, "Reminders": strings.Join(set.Reminders, ", "), "Max": jobs.MaxReminders,
		"MinLead": clock.Short(jobs.ReminderLead.Min), "MaxLead": clock.Short(jobs.ReminderLead.Max),
	})
	return nil
}

// saveNotifications handles "POST /app/settings/notifications".
func (d *Dashboard) saveNotifications(w http.ResponseWriter, r *http.Request, s *session) error {
	in := jobs.NotificationSettings{
		ConfirmationRequest: r.PostForm.Get("confirmation_request") == "on",
		Reminders:           strings.FieldsFunc(r.PostForm.Get("reminders"), func(c rune) bool { return c == ',' || c == ' ' || c == ';' }),
	}
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		saved, err := jobs.SaveNotificationSettings(r.Context(), tx, s.Account, in, d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		onOff := "off"
		if saved.ConfirmationRequest {
			onOff = "on"
		}
		rem := strings.Join(saved.Reminders, ", ")
		if rem == "" {
			rem = "none"
		}
		return "updated", "notifications", strconv.FormatInt(s.Account.ID, 10), "confirmation request " + onOff + "; reminders " + rem, nil
	})
	if err != nil {
		return localized(s, err)
	}
	d.redirect(w, r, Prefix+"settings/notifications", "ok", s.T("Notification settings saved. They apply to bookings made from now on."))
	return nil
}

// --- Webhooks ------------------------------------------------------------

type webhooksView struct {
	Webhooks   []jobs.Webhook
	EventTypes []string
	// New is the webhook created by this request and NewSecret its secret,
	// shown once (never stored in plaintext when the server has a key).
	New       *jobs.Webhook
	NewSecret string
}

// webhooksPage handles "GET /app/settings/webhooks".
func (d *Dashboard) webhooksPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return d.renderWebhooks(w, r, s, webhooksView{})
}

func (d *Dashboard) renderWebhooks(w http.ResponseWriter, r *http.Request, s *session, v webhooksView) error {
	list, err := jobs.ListWebhooks(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	v.Webhooks, v.EventTypes = list, jobs.EventTypes
	d.render(w, r, s, http.StatusOK, "settings_webhooks", "Webhooks", "settings", v)
	return nil
}

// maxSecretLen caps a webhook secret typed by the owner.
const maxSecretLen = 200

// createWebhook handles "POST /app/settings/webhooks". The secret (typed,
// else generated) is rendered in this response only, like a new API key.
func (d *Dashboard) createWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	secret := strings.TrimSpace(r.PostForm.Get("secret"))
	if len(secret) > maxSecretLen {
		return errs.New(errs.ValidationError, "A secret may have at most %d characters.", maxSecretLen)
	}
	if secret == "" {
		var b [24]byte
		rand.Read(b[:])
		secret = "whsec_" + base64.RawURLEncoding.EncodeToString(b[:])
	}
	sealed, err := d.secrets.SealIfKey(secret)
	if err != nil {
		return err
	}
	var created jobs.Webhook
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		created, err = jobs.CreateWebhook(r.Context(), tx, s.Account, jobs.NewWebhook{URL: r.PostForm.Get("url"), Events: r.PostForm["events"], SealedSecret: sealed, Targets: d.targets})
		if err != nil {
			return "", "", "", "", err
		}
		return "created", "webhook", strconv.FormatInt(created.ID, 10), "url " + created.URL + "; events " + strings.Join(created.Events, ", "), nil
	})
	if err != nil {
		return localized(s, err)
	}
	return d.renderWebhooks(w, r, s, webhooksView{New: &created, NewSecret: secret})
}

// webhookPage handles "GET /app/settings/webhooks/{webhook_id}": the
// webhook and its newest deliveries with every attempt.
func (d *Dashboard) webhookPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "webhook_id")
	if err != nil {
		return err
	}
	hook, err := jobs.WebhookByID(r.Context(), d.db, s.Account, id)
	if err != nil {
		return err
	}
	deliveries, err := jobs.WebhookDeliveries(r.Context(), d.db, s.Account, hook, 100)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_webhook", "Webhook", "settings", map[string]any{"Webhook": hook, "Deliveries": deliveries})
	return nil
}

// toggleWebhook handles "POST /app/settings/webhooks/{webhook_id}/active"
// (active=true resumes, else pauses).
func (d *Dashboard) toggleWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "webhook_id")
	if err != nil {
		return err
	}
	active := r.PostForm.Get("active") == "true"
	var hook jobs.Webhook
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		hook, err = jobs.SetWebhookActive(r.Context(), tx, s.Account, id, active)
		if err != nil {
			return "", "", "", "", err
		}
		action := "paused"
		if active {
			action = "resumed"
		}
		return action, "webhook", strconv.FormatInt(id, 10), "url " + hook.URL, nil
	})
	if err != nil {
		return localized(s, err)
	}
	msg := s.T("Webhook paused: it gets no new deliveries.")
	if active {
		msg = s.T("Webhook resumed.")
	}
	d.redirect(w, r, backTo(r, Prefix+"settings/webhooks"), "ok", msg)
	return nil
}

// deleteWebhook handles "POST /app/settings/webhooks/{webhook_id}/delete".
func (d *Dashboard) deleteWebhook(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "webhook_id")
	if err != nil {
		return err
	}
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		hook, err := jobs.DeleteWebhook(r.Context(), tx, s.Account, id)
		if err != nil {
			return "", "", "", "", err
		}
		return "deleted", "webhook", strconv.FormatInt(id, 10), "url " + hook.URL, nil
	})
	if err != nil {
		return localized(s, err)
	}
	d.redirect(w, r, Prefix+"settings/webhooks", "ok", s.T("Webhook deleted."))
	return nil
}

// --- Team and invitations ------------------------------------------------

type teamView struct {
	Members     []account.Member
	Invitations []account.Invitation
	Roles       []string
	// Link is the invitation link created by this request, shown once.
	Link    string
	Invited *account.Invitation
}

// teamPage handles "GET /app/settings/team".
func (d *Dashboard) teamPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return d.renderTeam(w, r, s, teamView{})
}

func (d *Dashboard) renderTeam(w http.ResponseWriter, r *http.Request, s *session, v teamView) error {
	members, err := account.ListMembers(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	invs, err := account.PendingInvitations(r.Context(), d.db, s.Account, d.clock.Now())
	if err != nil {
		return err
	}
	v.Members, v.Invitations, v.Roles = members, invs, account.Roles
	d.render(w, r, s, http.StatusOK, "settings_team", "Team", "settings", v)
	return nil
}

// invite handles "POST /app/settings/team/invitations": the link is
// rendered in this response only; only its token's hash is stored.
func (d *Dashboard) invite(w http.ResponseWriter, r *http.Request, s *session) error {
	in := account.NewInvitation{Email: r.PostForm.Get("email"), Name: r.PostForm.Get("name"), Role: r.PostForm.Get("role")}
	var inv account.Invitation
	var token string
	err := d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		var err error
		inv, token, err = account.Invite(r.Context(), tx, s.Account, s.UserID, in, d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		return "invited", "invitation", strconv.FormatInt(inv.ID, 10), inv.Email + " as " + inv.Role, nil
	})
	if err != nil {
		return localized(s, err)
	}
	return d.renderTeam(w, r, s, teamView{Link: d.publicBase(r) + Prefix + "invite/" + token, Invited: &inv})
}

// withdrawInvitation handles "POST /app/settings/team/invitations/{invitation_id}/withdraw".
func (d *Dashboard) withdrawInvitation(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "invitation_id")
	if err != nil {
		return err
	}
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		inv, err := account.WithdrawInvitation(r.Context(), tx, s.Account, id)
		if err != nil {
			return "", "", "", "", err
		}
		return "withdrawn", "invitation", strconv.FormatInt(id, 10), inv.Email, nil
	})
	if err != nil {
		return localized(s, err)
	}
	d.redirect(w, r, Prefix+"settings/team", "ok", s.T("Invitation withdrawn: its link no longer works."))
	return nil
}

// changeRole handles "POST /app/settings/team/{user_id}/role".
func (d *Dashboard) changeRole(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	role := r.PostForm.Get("role")
	var before account.Member
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		before, err = account.SetRole(r.Context(), tx, s.Account, s.UserID, id, role)
		if err != nil || before.Role == role {
			return "", "", "", "", err
		}
		return "role_changed", "user", strconv.FormatInt(id, 10), before.Name + ": " + before.Role + " → " + role, nil
	})
	if err != nil {
		return localized(s, err)
	}
	d.redirect(w, r, Prefix+"settings/team", "ok", s.T("%s is now %s.", before.Name, s.T(role)))
	return nil
}

// toggleMember handles "POST /app/settings/team/{user_id}/active"
// (active=true reactivates, else deactivates and ends their sessions).
func (d *Dashboard) toggleMember(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "user_id")
	if err != nil {
		return err
	}
	active := r.PostForm.Get("active") == "true"
	var m account.Member
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		m, err = account.SetActive(r.Context(), tx, s.Account, s.UserID, id, active)
		if err != nil || m.Active == active {
			return "", "", "", "", err
		}
		action := "deactivated"
		if active {
			action = "reactivated"
		}
		return action, "user", strconv.FormatInt(id, 10), m.Name + " (" + m.Email + ")", nil
	})
	if err != nil {
		return localized(s, err)
	}
	msg := s.T("%s can no longer sign in.", m.Name)
	if active {
		msg = s.T("%s can sign in again.", m.Name)
	}
	d.redirect(w, r, Prefix+"settings/team", "ok", msg)
	return nil
}

// --- Invitation link (signed out) ------------------------------------------

const inviteCSRFCookie = "frontdesk_invite_csrf"

type inviteView struct {
	Invitation account.Invitation
	Token      string
	Name       string
	FormCSRF   string
	Error      string
	MinLength  int
}

// invitePage handles "GET /app/invite/{token}": the form that accepts an
// invitation. An unknown, used or expired link is refused with the same
// words. The form carries a double-submit token (as sign-in does).
func (d *Dashboard) invitePage(w http.ResponseWriter, r *http.Request) {
	if !d.decodeForm(w, r, nil, 64<<10) {
		return
	}
	token := r.PathValue("token")
	inv, err := account.InvitationByToken(r.Context(), d.db, token, d.clock.Now())
	if err != nil {
		d.inviteFailed(w, r, err)
		return
	}
	d.renderInvite(w, r, http.StatusOK, inviteView{Invitation: inv, Token: token, Name: inv.Name})
}

func (d *Dashboard) renderInvite(w http.ResponseWriter, r *http.Request, status int, v inviteView) {
	v.FormCSRF = randomToken()
	v.MinLength = password.MinLength
	http.SetCookie(w, &http.Cookie{Name: inviteCSRFCookie, Value: v.FormCSRF, Path: Prefix + "invite/",
		MaxAge: 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	d.render(w, r, nil, status, "invite", "Join the team", "", v)
}

// inviteFailed renders a refused link (410 Gone) or any other error.
func (d *Dashboard) inviteFailed(w http.ResponseWriter, r *http.Request, err error) {
	var e *errs.Error
	if errors.As(err, &e) && e.Code == errs.ValidationError {
		d.renderError(w, r, nil, http.StatusGone, translate(requestLanguage(r), e.Message))
		return
	}
	d.fail(w, r, nil, err)
}

// acceptInvite handles "POST /app/invite/{token}": it creates the user
// with the invitation's e-mail and role, uses up the link, and signs the
// new user in.
func (d *Dashboard) acceptInvite(w http.ResponseWriter, r *http.Request) {
	if !d.decodeForm(w, r, nil, 64<<10) {
		return
	}
	lang := requestLanguage(r)
	c, err := r.Cookie(inviteCSRFCookie)
	sent := r.PostForm.Get("csrf_token")
	if err != nil || sent == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(c.Value)) != 1 {
		d.renderError(w, r, nil, http.StatusForbidden, translate(lang, "This form has expired. Reload the page and try again."))
		return
	}
	token := r.PathValue("token")
	now := d.clock.Now()
	inv, err := account.InvitationByToken(r.Context(), d.db, token, now)
	if err != nil {
		d.inviteFailed(w, r, err)
		return
	}
	name, pw := strings.TrimSpace(r.PostForm.Get("name")), r.PostForm.Get("password")
	v := inviteView{Invitation: inv, Token: token, Name: name}
	if len(pw) < password.MinLength || len(pw) > maxLoginFieldLen {
		v.Error = translate(lang, "Choose a password of %d to %d characters.", password.MinLength, maxLoginFieldLen)
		d.renderInvite(w, r, http.StatusUnprocessableEntity, v)
		return
	}
	hash, err := password.Hash(pw)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	var userID int64
	err = d.db.Transact(r.Context(), func(tx *db.Tx) error {
		var err error
		inv, userID, err = account.Accept(r.Context(), tx, token, name, hash, now)
		if err != nil {
			return err
		}
		return audit.Record(r.Context(), tx, account.Account{ID: inv.AccountID}, audit.Actor{UserID: userID, UserName: inv.Name},
			"accepted", "invitation", strconv.FormatInt(inv.ID, 10), inv.Email+" joined as "+inv.Role, now)
	})
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) && e.Code == errs.ValidationError && !errors.Is(err, account.ErrInvitationGone) {
			v.Error = translate(lang, e.Message)
			d.renderInvite(w, r, http.StatusUnprocessableEntity, v)
			return
		}
		d.inviteFailed(w, r, err)
		return
	}
	sessionToken, err := d.startSession(r.Context(), userRef{id: userID, accountID: inv.AccountID})
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: sessionToken, Path: Prefix, MaxAge: int(d.max / time.Second),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: isTLS(r)})
	http.SetCookie(w, &http.Cookie{Name: inviteCSRFCookie, Path: Prefix + "invite/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	d.logger(r.Context()).Info("dashboard: invitation accepted", "account_id", inv.AccountID, "user_id", userID)
	d.redirect(w, r, Prefix, "ok", translate(lang, "Welcome, %s: you are signed in.", inv.Name))
}

// --- Audit log -------------------------------------------------------------

// auditPageSize is the entries per page of the audit log.
const auditPageSize = 50

// auditPage handles "GET /app/settings/audit?before=": newest first, a
// page at a time.
func (d *Dashboard) auditPage(w http.ResponseWriter, r *http.Request, s *session) error {
	var before int64
	if v := r.URL.Query().Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return errs.New(errs.ValidationError, "%s", s.T("The page address is not valid."))
		}
		before = n
	}
	list, err := audit.List(r.Context(), d.db, s.Account, before, auditPageSize)
	if err != nil {
		return err
	}
	var next int64
	if len(list) == auditPageSize {
		next = list[len(list)-1].ID
	}
	d.render(w, r, s, http.StatusOK, "settings_audit", "Audit log", "settings", map[string]any{"Entries": list, "Next": next, "First": before == 0})
	return nil
}

// --- My preferences --------------------------------------------------------

// mePage handles "GET /app/settings/me": the user's own language.
func (d *Dashboard) mePage(w http.ResponseWriter, r *http.Request, s *session) error {
	m, err := account.MemberByID(r.Context(), d.db, s.Account, s.UserID)
	if err != nil {
		return err
	}
	d.render(w, r, s, http.StatusOK, "settings_team_me", "My preferences", "me", map[string]any{"Member": m})
	return nil
}

// saveMe handles "POST /app/settings/me".
func (d *Dashboard) saveMe(w http.ResponseWriter, r *http.Request, s *session) error {
	lang := r.PostForm.Get("language")
	if !slices.Contains([]string{"", "es", "en"}, lang) {
		return errs.New(errs.ValidationError, "%s", s.T("Choose Español, English or the account's language."))
	}
	if err := account.SetLanguage(r.Context(), d.db, s.Account, s.UserID, lang); err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/me", "ok", translate(languageOr(lang, s), "Language saved."))
	return nil
}

// languageOr is the language a saved choice shows: the choice, else the
// account's (read on the next page; the flash is in the chosen one when
// there is one).
func languageOr(lang string, s *session) string {
	if lang != "" {
		return lang
	}
	return s.Lang
}

// --- Channels ----------------------------------------------------------------

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
	d.render(w, r, s, http.StatusOK, "channels", "Channels", "settings", map[string]any{
		"Channels": views, "Settings": settings, "Base": base, "Configured": d.publicURL != "",
		"Types": channels.Types, "Providers": channels.ProviderNames, "ProviderFields": pf, "CanSeal": d.secrets.HasKey(),
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
		return localized(s, err)
	}
	d.logger(r.Context()).Info("dashboard: channel saved", "account_id", s.Account.ID, "user_id", s.UserID, "channel", saved.Key)
	d.redirect(w, r, Prefix+"settings/channels", "ok", s.T("Channel “%s” saved.", saved.Key))
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
		d.redirect(w, r, Prefix+"settings/channels", "error", s.T("The provider refused the test message: %s", pe.Error()))
		return nil
	case err != nil:
		return localized(s, err)
	}
	d.logger(r.Context()).Info("dashboard: channel test sent", "account_id", s.Account.ID, "channel", ch.Key, "provider_message_id", res.ProviderID)
	d.redirect(w, r, Prefix+"settings/channels", "ok", s.T("Test message sent through “%s” (provider id %s).", ch.Key, res.ProviderID))
	return nil
}
