package pipeline

// Ingest, phase 2: match every row to a stored client (by id, then phone,
// then e-mail), refuse rows that are the same client as an earlier row, and
// decide per row whether it updates, skips, fails or creates.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// decide matches every row and prepares its merge or creation from the
// clients found; it can run again with fresher clients.
func (b *batch) decide(byID map[int64]contact.Client, byPhone, byEmail map[string]contact.Client) {
	rows := b.req.Rows
	b.results = make([]RowResult, len(rows))
	b.matched = make([]*contact.Client, len(rows))
	b.merged = make([]contact.New, len(rows))
	b.changed = make([]bool, len(rows))
	b.tags = make([][]Tag, len(rows))
	claimed := map[string]int{} // identity key -> first row index
	for i, r := range rows {
		res := &b.results[i]
		*res = RowResult{Index: r.Index, ExternalID: r.ExternalID, Errors: append([]RowError{}, r.errors...),
			Pipeline: RowPipeline{Status: NotAttempted}}
		if len(res.Errors) > 0 {
			res.Status = StatusFailed
			continue
		}
		c, by, rerr := match(r, byID, byPhone, byEmail)
		if rerr != nil {
			b.fail(i, *rerr)
			continue
		}
		// A row that resolves to the same client as an earlier one.
		keys := identityKeys(r, c)
		if j, dup := firstClaim(claimed, keys); dup {
			e := rowErr(keys[0].field, CodeConflict, fmt.Sprintf("this row is the same client as row %d of this batch", j))
			e.DuplicateOfIndex = &j
			b.fail(i, e)
			continue
		}
		for _, k := range keys {
			claimed[k.key] = i
		}
		if c != nil {
			b.matched[i] = c
			res.MatchedBy = &by
			res.ClientID = &c.ID
			res.ExistingClient = snapshot(*c)
			switch b.req.OnDuplicate {
			case OnDuplicateFail:
				e := rowErr(matchField(by), CodeExists, fmt.Sprintf("client %d already exists", c.ID))
				e.ExistingClientID = &c.ID
				b.fail(i, e)
				continue
			case OnDuplicateSkip:
				res.Status = StatusSkipped
			default:
				res.Status = StatusUpdated
				if !b.merge(i, r, *c) {
					continue
				}
			}
		} else {
			res.Status = StatusCreated
			if !b.create(i, r) {
				continue
			}
		}
	}
}

// lookup loads the clients the rows can match, by id, phone and e-mail, in
// three queries (contact.ByKeys for phones and e-mails).
func lookup(ctx context.Context, tx *db.Tx, acct account.Account, ids []int64, nationals, emails []string) (
	byID map[int64]contact.Client, byPhone, byEmail map[string]contact.Client, err error) {
	if byID, err = contact.ByIDs(ctx, tx, acct, ids); err != nil {
		return
	}
	byPhone, byEmail, err = contact.ByKeys(ctx, tx, acct, nationals, emails)
	return
}

func (b *batch) fail(i int, e RowError) {
	r := &b.results[i]
	r.Status = StatusFailed
	r.Errors = append(r.Errors, e)
	b.matched[i] = nil
}

func matchField(by string) string {
	switch by {
	case "id":
		return "client_id"
	case "email":
		return "email"
	}
	return "phone_number"
}

// match applies the matching order: client_id, then phone (national digits,
// same country code), then e-mail.
func match(r Row, byID map[int64]contact.Client, byPhone map[string]contact.Client, byEmail map[string]contact.Client) (*contact.Client, string, *RowError) {
	emailOwner, emailTaken := byEmail[contact.NormEmail(r.Email)]
	emailTaken = emailTaken && r.Email != ""
	conflictEmail := func(c contact.Client) *RowError {
		if emailTaken && emailOwner.ID != c.ID {
			e := rowErr("email", CodeConflict, fmt.Sprintf("the e-mail belongs to another client (%d)", emailOwner.ID))
			e.ConflictingClientID = &emailOwner.ID
			return &e
		}
		return nil
	}
	if r.ClientID != nil {
		c, ok := byID[*r.ClientID]
		if !ok {
			e := rowErr("client_id", CodeNotFound, fmt.Sprintf("client %d not found", *r.ClientID))
			return nil, "", &e
		}
		if e := conflictEmail(c); e != nil {
			return nil, "", e
		}
		return &c, "id", nil
	}
	if !r.Phone.IsZero() {
		if c, ok := byPhone[r.Phone.National]; ok {
			if c.Phone.CountryCode != r.Phone.CountryCode {
				e := rowErr("phone_number", CodeConflict, fmt.Sprintf("the same national number is stored as %s for client %d", c.Phone.E164(), c.ID))
				e.ConflictingClientID = &c.ID
				return nil, "", &e
			}
			if e := conflictEmail(c); e != nil {
				return nil, "", e
			}
			return &c, "phone", nil
		}
	}
	if emailTaken {
		// Matched by e-mail; a phone the client does not have yet is not
		// written (phones never change on merge).
		c := emailOwner
		return &c, "email", nil
	}
	return nil, "", nil
}

type identity struct{ key, field string }

// identityKeys are the keys by which two rows of a batch are the same client.
func identityKeys(r Row, c *contact.Client) []identity {
	if c != nil {
		return []identity{{fmt.Sprintf("client:%d", c.ID), matchFieldOf(r)}}
	}
	var keys []identity
	if !r.Phone.IsZero() {
		keys = append(keys, identity{"phone:" + r.Phone.National, "phone_number"})
	}
	if r.Email != "" {
		keys = append(keys, identity{"email:" + contact.NormEmail(r.Email), "email"})
	}
	return keys
}

func matchFieldOf(r Row) string {
	switch {
	case r.ClientID != nil:
		return "client_id"
	case !r.Phone.IsZero():
		return "phone_number"
	}
	return "email"
}

func firstClaim(claimed map[string]int, keys []identity) (int, bool) {
	for _, k := range keys {
		if j, ok := claimed[k.key]; ok {
			return j, true
		}
	}
	return 0, false
}

func snapshot(c contact.Client) *ExistingClient {
	var tz *string
	if c.Timezone != "" {
		tz = &c.Timezone
	}
	return &ExistingClient{ID: c.ID, Name: c.Name(), FirstName: c.FirstName, LastName: c.LastName, Phone: c.PhoneE164(),
		Email: c.EmailOrNil(), Company: c.CompanyOrNil(), Timezone: tz, Data: c.Data, Tags: []Tag{},
		CreatedAt: clock.Format(c.CreatedAt), UpdatedAt: clock.Format(c.UpdatedAt)}
}

// loadExistingTags fills the snapshots' tags in one query.
func (b *batch) loadExistingTags(ctx context.Context) error {
	var ids []int64
	byClient := map[int64][]*ExistingClient{}
	for i := range b.results {
		if ec := b.results[i].ExistingClient; ec != nil {
			ids = append(ids, ec.ID)
			byClient[ec.ID] = append(byClient[ec.ID], ec)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	in, args := db.In(ids)
	rows, err := b.tx.Query(ctx, `SELECT ct.client_id, t.name, t.color, t.description FROM client_tags ct JOIN tags t ON t.account_id = ct.account_id AND t.id = ct.tag_id
		WHERE ct.account_id = ? AND ct.client_id IN `+in+` ORDER BY t.name`, append([]any{b.acct.ID}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id   int64
			t    Tag
			desc sql.NullString
		)
		if err := rows.Scan(&id, &t.Name, &t.Color, &desc); err != nil {
			return err
		}
		if desc.Valid {
			t.Description = &desc.String
		}
		for _, ec := range byClient[id] {
			ec.Tags = append(ec.Tags, t)
		}
	}
	return rows.Err()
}
