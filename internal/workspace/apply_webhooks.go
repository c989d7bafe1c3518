package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

func (ap *applier) webhooks(ctx context.Context) error {
	for wi, w := range ap.f.Webhooks {
		has := w.keys.has
		events := w.Events
		if events == nil {
			events = []string{}
		}
		var stored string
		if has("secret") {
			err := ap.tx.QueryRow(ctx, `SELECT secret FROM webhooks WHERE account_id = ? AND file_key = ?`, ap.acct.ID, w.Key).Scan(&stored)
			if err != nil && !db.IsNoRows(err) {
				return err
			}
		}
		secret, err := ap.seal(stored, w.Secret)
		if err != nil {
			return &Error{Problems: []string{fmt.Sprintf("webhooks[%d].secret: %v", wi, err)}}
		}
		var fs fields
		fs.add(has("url"), "url", w.URL)
		fs.addJSON(has("events"), "events", events)
		fs.add(has("secret"), "secret", secret)
		fs.add(has("active"), "active", boolOr(w.Active, true))
		if _, err := ap.upsertFields(ctx, "webhooks", "", ap.owned(w.Key), fs); err != nil {
			return err
		}
	}
	return nil
}

// seal returns the value to store for a secret: the stored value itself
// when it opens to the same plaintext and is stored as the server would
// store it (sealing is randomized, so sealing again would rewrite an
// unchanged secret and break idempotency), else the plaintext sealed when
// the server has a key. Plaintext stored before the key was set is sealed
// by the next apply that gives it. A server without the key refuses to
// replace a sealed secret rather than quietly store it in plaintext.
func (ap *applier) seal(stored, plaintext string) (string, error) {
	if stored != "" {
		open, err := ap.box.Open(stored)
		if errors.Is(err, secrets.ErrNoKey) {
			return "", fmt.Errorf("its stored secret is sealed and %s is not set: set it to apply the secret", secrets.EnvKey)
		}
		if err == nil && open == plaintext && secrets.IsSealed(stored) == ap.box.HasKey() {
			return stored, nil
		}
	}
	return ap.box.SealIfKey(plaintext)
}

// sealAutomations renders a stage's automations with their webhook secrets
// sealed, reusing the stored text when it opens to the same automations.
func (ap *applier) sealAutomations(stored string, autos []AutomationSpec) (string, error) {
	plain, err := db.JSONText(autos)
	if err != nil {
		return "", err
	}
	if stored != "" {
		var cur []AutomationSpec
		if err := json.Unmarshal([]byte(stored), &cur); err == nil {
			same := true
			for i := range cur {
				if cur[i].Secret == "" {
					continue
				}
				sealed := secrets.IsSealed(cur[i].Secret)
				if cur[i].Secret, err = ap.box.Open(cur[i].Secret); errors.Is(err, secrets.ErrNoKey) {
					return "", fmt.Errorf("its stored webhook secrets are sealed and %s is not set: set it to apply them", secrets.EnvKey)
				}
				if err != nil || sealed != ap.box.HasKey() {
					same = false
				}
			}
			if text, err := db.JSONText(cur); same && err == nil && text == plain {
				return stored, nil
			}
		}
	}
	sealed := make([]AutomationSpec, len(autos))
	for i, a := range autos {
		sealed[i] = a
		if a.Secret == "" {
			continue
		}
		s, err := ap.box.SealIfKey(a.Secret)
		if err != nil {
			return "", err
		}
		sealed[i].Secret = s
	}
	return db.JSONText(sealed)
}
