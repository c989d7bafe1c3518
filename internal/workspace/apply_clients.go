package workspace

import (
	"context"
	"fmt"
	"strings"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/phone"
)

func (ap *applier) clients(ctx context.Context) error {
	for _, cl := range ap.f.Clients {
		var pn phone.Number
		if cl.Phone != "" {
			pn, _ = phone.ParseWithRegion(cl.Phone, ap.acct.DefaultRegion)
		}
		// A client the API created first is adopted by its phone.
		if !pn.IsZero() && cl.keys.has("phone") {
			if _, err := ap.tx.Exec(ctx, `UPDATE clients SET file_key = ? WHERE account_id = ? AND phone_national = ? AND file_key IS NULL`,
				cl.Key, ap.acct.ID, pn.National); err != nil {
				return err
			}
		}
		var email, emailNorm, company, tz, cc, national any
		if cl.Email != nil && *cl.Email != "" {
			email, emailNorm = strings.TrimSpace(*cl.Email), contact.NormEmail(*cl.Email)
		}
		if cl.Company != nil {
			company = *cl.Company
		}
		if cl.Timezone != "" {
			tz = cl.Timezone
		}
		if !pn.IsZero() {
			cc, national = pn.CountryCode, pn.National
		}
		data := cl.Data
		if data == nil {
			data = map[string]any{}
		}
		has := cl.keys.has
		// The search name and text are made of both names, the e-mail and
		// the national id: a file that gives only some keeps the stored
		// others. Validate has checked the national id and insurer.
		nationalID, _ := contact.NationalID(cl.NationalID)
		insurer, policy, _ := contact.Insurance(cl.Insurer, cl.InsurancePolicy)
		first, last, mail, nid := cl.FirstName, cl.LastName, "", nationalID
		if cl.Email != nil {
			mail = *cl.Email
		}
		if !has("first_name") || !has("last_name") || !has("email") || !has("national_id") {
			var f, l, e, n string
			err := ap.tx.QueryRow(ctx, `SELECT first_name, last_name, COALESCE(email, ''), national_id FROM clients WHERE account_id = ? AND file_key = ?`,
				ap.acct.ID, cl.Key).Scan(&f, &l, &e, &n)
			if err != nil && !db.IsNoRows(err) {
				return err
			}
			if !has("first_name") {
				first = f
			}
			if !has("last_name") {
				last = l
			}
			if !has("email") {
				mail = e
			}
			if !has("national_id") {
				nid = n
			}
		}
		var fs fields
		fs.add(has("first_name"), "first_name", cl.FirstName)
		fs.add(has("last_name"), "last_name", cl.LastName)
		fs.add(has("first_name") || has("last_name"), "name_search", contact.SearchName(first, last))
		fs.add(has("first_name") || has("last_name") || has("email") || has("national_id"), "search_text", contact.SearchText(first, last, mail, nid))
		fs.add(has("phone"), "phone_cc", cc)
		fs.add(has("phone"), "phone_national", national)
		fs.add(has("email"), "email", email)
		fs.add(has("email"), "email_norm", emailNorm)
		fs.add(has("company"), "company", company)
		fs.add(has("timezone"), "timezone", tz)
		fs.addJSON(has("data"), "data", data)
		fs.add(has("national_id"), "national_id", nationalID)
		fs.add(has("insurer"), "insurer", insurer)
		fs.add(has("insurance_policy"), "insurance_policy", policy)
		id, err := ap.upsertFields(ctx, "clients", " WHERE file_key IS NOT NULL", ap.owned(cl.Key), fs,
			column("created_at", db.Micros(ap.now)), column("updated_at", db.Micros(ap.now)))
		if err != nil {
			if db.IsUniqueViolation(err) {
				return &Error{Problems: []string{fmt.Sprintf("clients: %q: its phone belongs to another client", cl.Key)}}
			}
			return err
		}
		ap.res.IDs.Clients[cl.Key] = id
		for _, t := range cl.Tags {
			if _, err := ap.tx.Exec(ctx, `INSERT INTO tags (account_id, name, color, created_at) VALUES (?, ?, '#808080', ?) ON CONFLICT DO NOTHING`,
				ap.acct.ID, t, db.Micros(ap.now)); err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO client_tags (account_id, client_id, tag_id, source, created_at)
				SELECT ?, ?, id, 'workspace', ? FROM tags WHERE account_id = ? AND name = ? ON CONFLICT DO NOTHING`,
				ap.acct.ID, id, db.Micros(ap.now), ap.acct.ID, t); err != nil {
				return err
			}
		}
		for _, pl := range cl.Pipelines {
			if err := ap.place(ctx, id, pl); err != nil {
				return err
			}
		}
	}
	return nil
}

// place puts a client on a pipeline unless it is already active there: the
// board is live data, so a re-apply never moves a card back.
func (ap *applier) place(ctx context.Context, clientID int64, pl PlacementSpec) error {
	pid, err := ap.idOf(ctx, "pipelines", ap.res.IDs.Pipelines, pl.Pipeline)
	if err != nil {
		return err
	}
	stages, err := ap.stageIDs(ctx, pl.Pipeline, pid)
	if err != nil {
		return err
	}
	stageID := stages[pl.Stage]
	if pl.Stage == "" {
		if err := ap.tx.QueryRow(ctx, `SELECT id FROM stages WHERE account_id = ? AND pipeline_id = ? ORDER BY is_entry_point DESC, position, id LIMIT 1`, ap.acct.ID, pid).Scan(&stageID); err != nil {
			return fmt.Errorf("pipeline %q has no stages: %w", pl.Pipeline, err)
		}
	}
	var cardID int64
	err = ap.tx.QueryRow(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, status, entry_source, added_at, stage_entered_at, updated_at)
		VALUES (?, ?, ?, ?, 'active', 'workspace', ?, ?, ?) ON CONFLICT (account_id, pipeline_id, client_id) WHERE status = 'active' DO NOTHING RETURNING id`,
		ap.acct.ID, pid, clientID, stageID, db.Micros(ap.now), db.Micros(ap.now), db.Micros(ap.now)).Scan(&cardID)
	if db.IsNoRows(err) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = ap.tx.Exec(ctx, `INSERT INTO card_events (account_id, card_id, kind, to_stage_id, source, created_at) VALUES (?, ?, 'placed', ?, 'workspace', ?)`,
		ap.acct.ID, cardID, stageID, db.Micros(ap.now))
	return err
}
