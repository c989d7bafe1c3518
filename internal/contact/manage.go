package contact

// Finding and editing clients by hand (the dashboard's client pages):
// edits with their checks, tags. The search is search.go.

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// GetClient loads one client of the account, or NOT_FOUND.
func GetClient(ctx context.Context, q db.Querier, acct account.Account, id int64) (Client, error) {
	c, err := Get(ctx, q, acct, id)
	if db.IsNoRows(err) {
		return c, errs.New(errs.NotFound, "Client %v not found.", id)
	}
	return c, err
}

// Tag is a client's tag.
type Tag struct {
	ID          int64
	Name        string
	Color       string
	Description string
	Source      string
}

// ClientTags lists a client's tags by name.
func ClientTags(ctx context.Context, q db.Querier, acct account.Account, clientID int64) ([]Tag, error) {
	rows, err := q.Query(ctx, `SELECT t.id, t.name, t.color, COALESCE(t.description, ''), ct.source
		FROM client_tags ct JOIN tags t ON t.account_id = ct.account_id AND t.id = ct.tag_id WHERE ct.account_id = ? AND ct.client_id = ? ORDER BY t.name`, acct.ID, clientID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Tag
	for rows.Next() {
		var t Tag
		if err := rows.Scan(&t.ID, &t.Name, &t.Color, &t.Description, &t.Source); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// ClientUpdate is the whole editable record of a client as the form sends
// it: an empty string clears the field (the contract: clearing a stored
// field to empty is dashboard-only). Phones are not edited here: they are
// the client's identity for matching.
type ClientUpdate struct {
	FirstName, LastName, Email, Company, Timezone string
	LeadValue                                     string // "" clears
	Data                                          map[string]any
	// NationalID (DNI/NIE, checked by NationalID), Insurer and
	// InsurancePolicy (Insurance): "" clears.
	NationalID, Insurer, InsurancePolicy string
}

// UpdateClient writes u over the client.
func UpdateClient(ctx context.Context, store *db.DB, acct account.Account, id int64, u ClientUpdate, now time.Time) error {
	first, last, namesFit := Names(u.FirstName, u.LastName)
	u.FirstName, u.LastName = first, last
	u.Email, u.Company, u.Timezone = strings.TrimSpace(u.Email), strings.TrimSpace(u.Company), strings.TrimSpace(u.Timezone)
	switch {
	case !namesFit:
		return errs.New(errs.ValidationError, "First and last names may have at most %d characters.", MaxNameLen)
	case len(u.Email) > 255:
		return errs.New(errs.ValidationError, "An e-mail may have at most 255 characters.")
	case u.Email != "" && !validEmail(u.Email):
		return errs.New(errs.ValidationError, "%q is not an e-mail address.", u.Email)
	case len(u.Company) > 255:
		return errs.New(errs.ValidationError, "A company may have at most 255 characters.")
	case u.Timezone != "" && !ValidZone(u.Timezone):
		return errs.New(errs.ValidationError, "%q is not a time zone (use an IANA name such as Europe/Madrid).", u.Timezone)
	}
	nationalID, err := NationalID(u.NationalID)
	if err != nil {
		return err
	}
	insurer, policy, err := Insurance(u.Insurer, u.InsurancePolicy)
	if err != nil {
		return err
	}
	var lead any
	if v := strings.TrimSpace(u.LeadValue); v != "" {
		f, ok := ParseLeadValue(v)
		if !ok {
			return errs.New(errs.ValidationError, "The lead value must be a number of zero or more.")
		}
		lead = f
	}
	if u.Data == nil {
		u.Data = map[string]any{}
	}
	for k := range u.Data {
		if strings.TrimSpace(k) == "" || len(k) > 100 {
			return errs.New(errs.ValidationError, "Custom field names must have 1 to 100 characters.")
		}
	}
	data, _ := json.Marshal(u.Data)
	if len(data) >= 16<<10 {
		return errs.New(errs.ValidationError, "Custom fields must stay under 16 KB.")
	}
	res, err := store.Exec(ctx, `UPDATE clients SET first_name = ?, last_name = ?, name_search = ?, search_text = ?, email = ?, email_norm = ?,
			company = ?, timezone = ?, lead_value = ?, data = ?, national_id = ?, insurer = ?, insurance_policy = ?, updated_at = ?
		WHERE account_id = ? AND id = ?`,
		u.FirstName, u.LastName, SearchName(u.FirstName, u.LastName), SearchText(u.FirstName, u.LastName, u.Email, nationalID), db.Null(u.Email), db.Null(NormEmail(u.Email)),
		db.Null(u.Company), db.Null(u.Timezone), lead, string(data), nationalID, insurer, policy, db.Micros(now), acct.ID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.New(errs.NotFound, "Client %v not found.", id)
	}
	return nil
}

// AddClientTag tags a client, creating the tag (grey) when the account has
// none of that name.
func AddClientTag(ctx context.Context, store *db.DB, acct account.Account, clientID int64, name string, now time.Time) error {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return errs.New(errs.ValidationError, "A tag needs a name of 1 to 100 characters.")
	}
	return store.Transact(ctx, func(tx *db.Tx) error {
		if _, err := GetClient(ctx, tx, acct, clientID); err != nil {
			return err
		}
		return tagClient(ctx, tx, acct, clientID, name, now)
	})
}

// RemoveClientTag untags a client (the tag itself stays in the account).
func RemoveClientTag(ctx context.Context, q db.Querier, acct account.Account, clientID, tagID int64) error {
	res, err := q.Exec(ctx, `DELETE FROM client_tags WHERE account_id = ? AND client_id = ? AND tag_id = ?`, acct.ID, clientID, tagID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.New(errs.NotFound, "Tag %v not found.", tagID)
	}
	return nil
}
