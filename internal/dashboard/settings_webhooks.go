package dashboard

// Settings › Webhooks: the account's outbound webhooks, their secrets
// (shown once) and their delivery log, owners only and audited.

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

type webhooksView struct {
	Webhooks   []jobs.Webhook
	EventTypes []string
	// New is the webhook created by this request and NewSecret its secret,
	// shown once (never stored in plaintext when the server has a key).
	New       *jobs.Webhook
	NewSecret string
}

func (webhooksView) isPage() {}

// webhookView is a webhook's page: it and its newest deliveries.
type webhookView struct {
	Webhook    jobs.Webhook
	Deliveries []jobs.Delivery
}

func (webhookView) isPage() {}

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
	d.render(w, r, s, http.StatusOK, "settings_webhooks", "Webhooks", "settings-webhooks", v)
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
		return localize(s, err)
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
	d.render(w, r, s, http.StatusOK, "settings_webhook", "Webhook", "settings-webhooks", webhookView{Webhook: hook, Deliveries: deliveries})
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
		return localize(s, err)
	}
	msg := s.Translate("Webhook paused: it gets no new deliveries.")
	if active {
		msg = s.Translate("Webhook resumed.")
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
		return localize(s, err)
	}
	d.redirect(w, r, Prefix+"settings/webhooks", "ok", s.Translate("Webhook deleted."))
	return nil
}
