package jobs

// The account's outbound webhooks as the dashboard's settings manage them:
// list, add, pause or resume, delete, and each one's deliveries. The
// workspace file manages the same rows (its keys are the file_key); a
// webhook added here gets a generated key.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/outbound"
)

// Webhook is one of the account's outbound webhooks; never its secret.
type Webhook struct {
	ID        int64
	Key       string
	URL       string
	Events    []string // empty: every event
	Active    bool
	HasSecret bool
}

// NewWebhook is a webhook to add. SealedSecret is the secret as it is to be
// stored (sealed by the caller's secrets box when the server has a key).
type NewWebhook struct {
	URL          string
	Events       []string
	SealedSecret string
	// Targets is the server's outbound policy the URL must pass.
	Targets outbound.Policy
}

// MaxWebhookURL caps a webhook's URL (characters).
const MaxWebhookURL = 2000

// ValidWebhookURL reports a problem with a webhook URL: an absolute http(s)
// URL of at most MaxWebhookURL characters that targets allows
// (docs/api-notes.md, "Outbound targets"). Every door that saves a webhook
// (the workspace file, account and automation webhooks, the dashboard)
// calls it; the error's details say why.
func ValidWebhookURL(raw string, targets outbound.Policy) error {
	reason := ""
	if len(raw) > MaxWebhookURL {
		reason = fmt.Sprintf("must have 1 to %d characters", MaxWebhookURL)
	} else if err := targets.CheckURL(raw); err != nil {
		reason = err.Error()
	}
	if reason == "" {
		return nil
	}
	return errs.WithDetails(errs.ValidationError, map[string]any{"reason": reason}, WebhookURLRefusal)
}

// WebhookURLRefusal is ValidWebhookURL's message (a fixed sentence, so the
// dashboard's catalogue translates it; the reason is in the details).
const WebhookURLRefusal = "The webhook URL must be a public http or https address of at most 2000 characters."

func scanWebhook(row interface{ Scan(...any) error }) (Webhook, error) {
	var w Webhook
	var events, secret string
	if err := row.Scan(&w.ID, &w.Key, &w.URL, &events, &secret, &w.Active); err != nil {
		return Webhook{}, err
	}
	json.Unmarshal([]byte(events), &w.Events)
	w.HasSecret = secret != ""
	return w, nil
}

const selectWebhook = `SELECT id, file_key, url, events, secret, active FROM webhooks`

// ListWebhooks lists the account's webhooks in the order they were added.
func ListWebhooks(ctx context.Context, q db.Querier, acct account.Account) ([]Webhook, error) {
	rows, err := q.Query(ctx, selectWebhook+` WHERE account_id = ? ORDER BY id`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// WebhookByID loads one of the account's webhooks; another account's id is
// NOT_FOUND like an unknown one.
func WebhookByID(ctx context.Context, q db.Querier, acct account.Account, id int64) (Webhook, error) {
	w, err := scanWebhook(q.QueryRow(ctx, selectWebhook+` WHERE account_id = ? AND id = ?`, acct.ID, id))
	if db.IsNoRows(err) {
		return Webhook{}, errs.New(errs.NotFound, "no webhook %d", id)
	}
	return w, err
}

// CreateWebhook adds a webhook subscribed to the given events (at least
// one, each of EventTypes) and returns it.
func CreateWebhook(ctx context.Context, tx *db.Tx, acct account.Account, in NewWebhook) (Webhook, error) {
	in.URL = strings.TrimSpace(in.URL)
	if err := ValidWebhookURL(in.URL, in.Targets); err != nil {
		return Webhook{}, err
	}
	if len(in.Events) == 0 {
		return Webhook{}, errs.New(errs.ValidationError, "Choose at least one event.")
	}
	events := make([]string, 0, len(in.Events))
	for _, e := range in.Events {
		if !slices.Contains(EventTypes, e) {
			return Webhook{}, errs.New(errs.ValidationError, "Unknown event %q.", e)
		}
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	var b [6]byte
	rand.Read(b[:])
	w := Webhook{Key: "dashboard-" + hex.EncodeToString(b[:]), URL: in.URL, Events: events, Active: true, HasSecret: in.SealedSecret != ""}
	evs, _ := json.Marshal(events)
	err := tx.QueryRow(ctx, `INSERT INTO webhooks (account_id, file_key, url, events, secret, active) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		acct.ID, w.Key, w.URL, string(evs), in.SealedSecret, true).Scan(&w.ID)
	if err != nil {
		return Webhook{}, fmt.Errorf("create webhook: %w", err)
	}
	return w, nil
}

// SetWebhookActive pauses (false) or resumes (true) a webhook: a paused one
// gets no new deliveries; those already queued still go.
func SetWebhookActive(ctx context.Context, tx *db.Tx, acct account.Account, id int64, active bool) (Webhook, error) {
	w, err := WebhookByID(ctx, tx, acct, id)
	if err != nil {
		return Webhook{}, err
	}
	if _, err := tx.Exec(ctx, `UPDATE webhooks SET active = ? WHERE account_id = ? AND id = ?`, active, acct.ID, id); err != nil {
		return Webhook{}, err
	}
	w.Active = active
	return w, nil
}

// DeleteWebhook removes a webhook; deliveries already queued still go (they
// carry their URL and secret) and stay in the delivery log.
func DeleteWebhook(ctx context.Context, tx *db.Tx, acct account.Account, id int64) (Webhook, error) {
	w, err := WebhookByID(ctx, tx, acct, id)
	if err != nil {
		return Webhook{}, err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM webhooks WHERE account_id = ? AND id = ?`, acct.ID, id); err != nil {
		return Webhook{}, err
	}
	return w, nil
}

// deliveryScan is how many of the account's newest deliveries
// WebhookDeliveries looks through for one webhook's.
const deliveryScan = 500

// WebhookDeliveries lists the newest deliveries to a webhook's URL (at
// most limit), with their attempts, from the account's newest deliveries.
func WebhookDeliveries(ctx context.Context, q db.Querier, acct account.Account, w Webhook, limit int) ([]Delivery, error) {
	all, err := ListDeliveries(ctx, q, acct, deliveryScan)
	if err != nil {
		return nil, err
	}
	out := []Delivery{}
	for _, d := range all {
		if d.URL == w.URL && len(out) < limit {
			out = append(out, d)
		}
	}
	return out, nil
}
