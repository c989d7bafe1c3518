package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar/bookingrules"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/retention"
	"github.com/frontdesk/frontdesk/internal/texts"
)

func (ap *applier) account(ctx context.Context) error {
	a := ap.f.Account
	has := a.keys.has
	name := a.Name
	if name == "" {
		name = a.Slug
	}
	tz := a.Timezone
	if tz == "" {
		tz = "UTC"
	}
	var fs fields
	fs.add(has("name"), "name", name)
	fs.add(has("timezone"), "timezone", tz)
	fs.add(has("default_region"), "default_region", strings.ToUpper(a.DefaultRegion))
	if has("language") {
		fs.add(true, "language", texts.Lang(a.Language))
	}
	if n := ap.f.Notifications; n != nil {
		notif, err := ap.notifications(ctx, a.Slug, n)
		if err != nil {
			return err
		}
		fs.add(true, "notifications", notif)
	}
	if has("limits") {
		l := a.Limits
		if l == nil { // limits: null is the default again
			l = &LimitsSpec{}
		}
		if l.keys.has("requests_per_second") {
			var v any
			if n, ok := number(l.RequestsPerSecond); ok {
				v = n
			}
			fs.add(true, "rate_per_second", v)
		}
		if l.keys.has("burst") {
			var v any
			if n, ok := number(l.Burst); ok {
				v = int64(n)
			}
			fs.add(true, "rate_burst", v)
		}
	}
	if has("booking_rules") {
		set, _ := bookingrules.Read(a.BookingRules) // Validate refused what does not read
		fs.add(true, "booking_rules", set.Document())
	}
	if has("retention") { // retention: null keeps everything again
		policy, _ := retention.Read(a.Retention) // Validate refused what does not read
		fs.add(true, "retention", policy.Document())
	}
	id, err := ap.upsertFields(ctx, "accounts", "", []col{column("slug", a.Slug)}, fs,
		column("created_at", db.Micros(ap.now)), column("updated_at", db.Micros(ap.now)))
	if err != nil {
		return err
	}
	ap.acct, err = account.BySlug(ctx, ap.tx, a.Slug)
	if err == nil && ap.acct.ID != id {
		err = fmt.Errorf("account id mismatch")
	}
	return err
}

// notifications merges the keys the file gives into the stored settings.
func (ap *applier) notifications(ctx context.Context, slug string, n *Notifications) (string, error) {
	var cur jobs.NotificationSettings
	var stored string
	err := ap.tx.QueryRow(ctx, `SELECT notifications FROM accounts WHERE slug = ?`, slug).Scan(&stored)
	switch {
	case db.IsNoRows(err):
	case err != nil:
		return "", err
	default:
		// Settings that do not read are replaced by the file's.
		_ = json.Unmarshal([]byte(stored), &cur)
	}
	if n.keys.has("confirmation_request") {
		cur.ConfirmationRequest = n.ConfirmationRequest
	}
	if n.keys.has("reminders") {
		cur.Reminders = n.Reminders
	}
	if cur.Reminders == nil {
		cur.Reminders = []string{}
	}
	return db.JSONText(cur)
}

func (ap *applier) apiKeys(ctx context.Context) error {
	for _, k := range ap.f.APIKeys {
		var (
			id      int64
			revoked *int64
		)
		err := ap.tx.QueryRow(ctx, `SELECT id, revoked_at FROM api_keys WHERE account_id = ? AND file_key = ?`, ap.acct.ID, k.Key).Scan(&id, &revoked)
		expires := time.Time{}
		if k.ExpiresAt != "" {
			expires, _ = time.Parse(time.RFC3339Nano, k.ExpiresAt)
		}
		switch {
		case db.IsNoRows(err):
			name := k.Name
			if name == "" {
				name = k.Key
			}
			plain, err := account.InsertKey(ctx, ap.tx, ap.acct, account.NewKey{
				FileKey: k.Key, Name: name, Value: k.Value, ExpiresAt: expires, Revoked: k.Revoked,
			}, ap.now)
			if err != nil {
				return fmt.Errorf("api key %q: %w", k.Key, err)
			}
			ap.res.APIKeys[k.Key] = plain
		case err != nil:
			return err
		default:
			// An existing key keeps its secret; the file can still expire or
			// revoke it (never un-revoke: a leaked key stays dead).
			if k.Revoked && revoked == nil {
				if _, err := ap.tx.Exec(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ?`, db.Micros(ap.now), id); err != nil {
					return err
				}
			}
			if !k.keys.has("expires_at") {
				continue
			}
			if _, err := ap.tx.Exec(ctx, `UPDATE api_keys SET expires_at = ? WHERE id = ? AND expires_at IS DISTINCT FROM ?`,
				db.NullMicros(expires), id, db.NullMicros(expires)); err != nil {
				return err
			}
		}
	}
	return nil
}
