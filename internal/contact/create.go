package contact

import (
	"context"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// ClientInput is a client typed in by hand (the dashboard's "New client"
// form). Tags are names; a tag the account lacks is created, as when a tag
// is added on the client's page.
type ClientInput struct {
	FirstName, LastName string
	Phone               string // as typed: the account's default region stands in for a missing country code
	Email               string
	Company             string
	Notes               string // kept in the client's custom fields as "notes"
	Tags                []string
}

// Duplicate is the details of the refusal to create a client whose phone
// or e-mail already belongs to one: the front door names and links it.
type Duplicate struct {
	Field      string // "phone" or "email"
	ClientID   int64
	ClientName string
}

// The refusals of CreateClient whose text does not depend on the input, so
// a front door can translate them.
const (
	MsgNameRequired    = "A client needs a first or last name."
	MsgContactRequired = "A client needs a phone or an e-mail."
	MsgInvalidPhone    = "This is not a phone number we can reach: check the digits and the country code."
	MsgInvalidEmail    = "This is not an e-mail address."
	MsgTooLong         = "Names may have at most 100 characters; e-mail and company at most 255; notes at most 2000."
	MsgPhoneTaken      = "This phone already belongs to a client."
	MsgEmailTaken      = "This e-mail already belongs to a client."
)

// CreateClient creates one client by hand. Phones are read as everywhere
// outside ingest (phone.ParseWithRegion with the account's default region)
// and matched like ingest matches them: on national digits, whatever the
// country code, and e-mails on their normalised form. A phone or e-mail
// that already belongs to a client is refused (errs.ValidationError with
// Duplicate details) rather than merged: a receptionist creating a client
// wants a new record, and merging by hand is a decision to show, not take.
//
// It takes the per-key locks ingest, booking and the waiting list take
// (LockKeys), so two receptionists typing the same phone at once create one
// client; the unique phone index stays the last word.
func CreateClient(ctx context.Context, store *db.DB, acct account.Account, in ClientInput, now time.Time) (Client, error) {
	n, err := validateInput(acct, &in)
	if err != nil {
		return Client{}, err
	}
	var out Client
	err = store.Transact(ctx, func(tx *db.Tx) error {
		if err := LockKeys(ctx, tx, acct, Keys{Nationals: []string{n.Phone.National}, Emails: []string{n.Email}}); err != nil {
			return err
		}
		if err := refuseTaken(ctx, tx, acct, n); err != nil {
			return err
		}
		ids, err := InsertMany(ctx, tx, acct, []New{n}, now)
		if db.IsUniqueViolation(err) {
			// Another writer took the phone without our lock (a path that
			// does not lock): report it as taken, as if we had seen it.
			return errs.New(errs.ValidationError, MsgPhoneTaken)
		}
		if err != nil {
			return err
		}
		for _, tag := range in.Tags {
			if err := tagClient(ctx, tx, acct, ids[0], tag, now); err != nil {
				return err
			}
		}
		out, err = Get(ctx, tx, acct, ids[0])
		return err
	})
	return out, err
}

// validateInput trims in and turns it into the row to insert.
func validateInput(acct account.Account, in *ClientInput) (New, error) {
	first, last, namesFit := Names(in.FirstName, in.LastName)
	in.FirstName, in.LastName = first, last
	in.Phone, in.Email = strings.TrimSpace(in.Phone), strings.TrimSpace(in.Email)
	in.Company, in.Notes = strings.TrimSpace(in.Company), strings.TrimSpace(in.Notes)
	var tags []string
	for _, t := range in.Tags {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	in.Tags = tags
	switch {
	case in.FirstName == "" && in.LastName == "":
		return New{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "first_name"}, MsgNameRequired)
	case in.Phone == "" && in.Email == "":
		return New{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "phone"}, MsgContactRequired)
	case !namesFit || len(in.Email) > 255 || len(in.Company) > 255 || len(in.Notes) > 2000 || len(in.Phone) > 64:
		return New{}, errs.New(errs.ValidationError, MsgTooLong)
	}
	for _, t := range in.Tags {
		if len(t) > 100 {
			return New{}, errs.New(errs.ValidationError, "A tag needs a name of 1 to 100 characters.")
		}
	}
	n := New{FirstName: in.FirstName, LastName: in.LastName, Email: in.Email, Company: in.Company}
	if in.Phone != "" {
		p, err := phone.ParseWithRegion(in.Phone, acct.DefaultRegion)
		if err != nil {
			return New{}, errs.WithDetails(errs.InvalidPhone, map[string]any{"field": "phone"}, MsgInvalidPhone)
		}
		n.Phone = p
	}
	if in.Email != "" && !validEmail(in.Email) {
		return New{}, errs.WithDetails(errs.ValidationError, map[string]any{"field": "email"}, MsgInvalidEmail)
	}
	if in.Notes != "" {
		n.Data = map[string]any{"notes": in.Notes}
	}
	return n, nil
}

// refuseTaken refuses a phone or e-mail that belongs to a client already.
func refuseTaken(ctx context.Context, tx *db.Tx, acct account.Account, n New) error {
	if !n.Phone.IsZero() {
		found, err := ByNationals(ctx, tx, acct, []string{n.Phone.National})
		if err != nil {
			return err
		}
		if c, ok := found[n.Phone.National]; ok {
			return errs.WithDetails(errs.ValidationError, Duplicate{Field: "phone", ClientID: c.ID, ClientName: c.Name()}, MsgPhoneTaken)
		}
	}
	if n.Email != "" {
		found, err := ByEmails(ctx, tx, acct, []string{n.Email})
		if err != nil {
			return err
		}
		if c, ok := found[NormEmail(n.Email)]; ok {
			return errs.WithDetails(errs.ValidationError, Duplicate{Field: "email", ClientID: c.ID, ClientName: c.Name()}, MsgEmailTaken)
		}
	}
	return nil
}

// tagClient tags a client of acct inside tx, creating the tag (grey) when
// the account has none of that name.
func tagClient(ctx context.Context, tx *db.Tx, acct account.Account, clientID int64, name string, now time.Time) error {
	var tagID int64
	err := tx.QueryRow(ctx, `SELECT id FROM tags WHERE account_id = ? AND name = ?`, acct.ID, name).Scan(&tagID)
	if db.IsNoRows(err) {
		err = tx.QueryRow(ctx, `INSERT INTO tags (account_id, name, color, created_at) VALUES (?, ?, '#808080', ?) RETURNING id`,
			acct.ID, name, db.Micros(now)).Scan(&tagID)
	}
	if err != nil {
		return err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM client_tags WHERE account_id = ? AND client_id = ? AND tag_id = ?`, acct.ID, clientID, tagID).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO client_tags (account_id, client_id, tag_id, source, created_at) VALUES (?, ?, ?, ?, ?)`,
		acct.ID, clientID, tagID, "dashboard", db.Micros(now))
	return err
}
