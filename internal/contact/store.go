package contact

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// Client is a stored contact.
type Client struct {
	ID        int64
	FirstName string
	LastName  string
	Phone     phone.Number // zero when the client has no phone
	Email     string       // "" when none
	Company   string       // "" when none
	Timezone  string       // "" when none
	Data      map[string]any
	LeadValue *float64
	// NationalID is the DNI/NIE in its stored form (NationalID), Insurer
	// and InsurancePolicy free text: "" when not known
	// (docs/patient-fields.md). The public API does not show them.
	NationalID, Insurer, InsurancePolicy string
	CreatedAt                            time.Time
	UpdatedAt                            time.Time
	// Version is the stored row's version as the lookups of this package
	// read it (RowVersions); 0 when read otherwise or where the engine
	// has none.
	Version int64
}

// Name is the display name.
func (c Client) Name() string { return DisplayName(c.FirstName, c.LastName) }

// Ref is the {id, name, phone} shape embedded in booking responses.
type Ref struct {
	ID    int64   `json:"id"`
	Name  string  `json:"name"`
	Phone *string `json:"phone"`
}

// Ref returns the client's embedded reference.
func (c Client) Ref() Ref { return Ref{ID: c.ID, Name: c.Name(), Phone: c.PhoneE164()} }

// PhoneE164 is the phone in E.164, or nil.
func (c Client) PhoneE164() *string {
	if c.Phone.IsZero() {
		return nil
	}
	s := c.Phone.E164()
	return &s
}

// EmailOrNil is the e-mail, or nil.
func (c Client) EmailOrNil() *string { return strOrNil(c.Email) }

// CompanyOrNil is the company, or nil.
func (c Client) CompanyOrNil() *string { return strOrNil(c.Company) }

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Summary is the {id, name, first_name, last_name, phone, email, company}
// shape of conversation and pipeline responses.
type Summary struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	FirstName string  `json:"first_name"`
	LastName  string  `json:"last_name"`
	Phone     *string `json:"phone"`
	Email     *string `json:"email"`
	Company   *string `json:"company"`
}

// Summary returns the client's summary shape.
func (c Client) Summary() Summary {
	return Summary{ID: c.ID, Name: c.Name(), FirstName: c.FirstName, LastName: c.LastName,
		Phone: c.PhoneE164(), Email: c.EmailOrNil(), Company: c.CompanyOrNil()}
}

// Columns is the select list that Scan reads, for queries that join clients
// under the alias c.
const Columns = `c.id, c.first_name, c.last_name, c.phone_cc, c.phone_national, c.email, c.company, c.timezone, c.data, c.lead_value, c.national_id, c.insurer, c.insurance_policy, c.created_at, c.updated_at`

// Scan reads a row selected with Columns.
func Scan(row interface{ Scan(...any) error }, extra ...any) (Client, error) {
	var (
		c                        Client
		cc                       sql.NullInt64
		national, email, company sql.NullString
		tz                       sql.NullString
		data                     string
		lead                     sql.NullFloat64
		created, updated         int64
	)
	dest := append([]any{&c.ID, &c.FirstName, &c.LastName, &cc, &national, &email, &company, &tz, &data, &lead, &c.NationalID, &c.Insurer, &c.InsurancePolicy, &created, &updated}, extra...)
	if err := row.Scan(dest...); err != nil {
		return c, err
	}
	if national.Valid {
		c.Phone = phone.Number{CountryCode: int(cc.Int64), National: national.String}
	}
	c.Email, c.Company, c.Timezone = email.String, company.String, tz.String
	if lead.Valid {
		v := lead.Float64
		c.LeadValue = &v
	}
	c.Data = map[string]any{}
	if data != "" {
		json.Unmarshal([]byte(data), &c.Data)
	}
	c.CreatedAt, c.UpdatedAt = db.Time(created), db.Time(updated)
	return c, nil
}

func query(ctx context.Context, q db.Querier, where string, args ...any) ([]Client, error) {
	rows, err := q.Query(ctx, `SELECT `+Columns+`, `+versionColumn(q.Dialect())+` FROM clients c WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("find clients: %w", err)
	}
	defer rows.Close()
	var out []Client
	for rows.Next() {
		var version int64
		c, err := Scan(rows, &version)
		if err != nil {
			return nil, err
		}
		c.Version = version
		out = append(out, c)
	}
	return out, rows.Err()
}

// Get returns one client of acct, or db.ErrNoRows.
func Get(ctx context.Context, q db.Querier, acct account.Account, id int64) (Client, error) {
	return Scan(q.QueryRow(ctx, `SELECT `+Columns+` FROM clients c WHERE c.account_id = ? AND c.id = ?`, acct.ID, id))
}

// chunk splits a lookup list so one IN list never exceeds the engine's
// parameter limit; a 500-row batch is one query.
func chunk[T any](vals []T, fn func([]T) error) error {
	const size = 1000
	for start := 0; start < len(vals); start += size {
		if err := fn(vals[start:min(start+size, len(vals))]); err != nil {
			return err
		}
	}
	return nil
}

// ByIDs loads the clients of acct with these ids, in one query per 1000 ids.
func ByIDs(ctx context.Context, q db.Querier, acct account.Account, ids []int64) (map[int64]Client, error) {
	out := make(map[int64]Client, len(ids))
	err := chunk(dedupe(ids), func(part []int64) error {
		in, args := db.InKeys(part)
		found, err := query(ctx, q, `c.account_id = ? AND c.id IN `+in, append([]any{acct.ID}, args...)...)
		for _, c := range found {
			out[c.ID] = c
		}
		return err
	})
	return out, err
}

// ByNationals loads the clients of acct owning these national phone digits,
// keyed by national digits (whatever their country code).
func ByNationals(ctx context.Context, q db.Querier, acct account.Account, nationals []string) (map[string]Client, error) {
	out := make(map[string]Client, len(nationals))
	err := chunk(dedupe(nationals), func(part []string) error {
		in, args := db.InKeys(part)
		found, err := query(ctx, q, `c.account_id = ? AND c.phone_national IN `+in, append([]any{acct.ID}, args...)...)
		for _, c := range found {
			out[c.Phone.National] = c
		}
		return err
	})
	return out, err
}

// ByEmails loads the clients of acct with these e-mails (matched
// case-insensitively), keyed by NormEmail. E-mail is not unique: when several
// clients share one, the oldest wins.
func ByEmails(ctx context.Context, q db.Querier, acct account.Account, emails []string) (map[string]Client, error) {
	norm := normEmails(emails)
	out := make(map[string]Client, len(norm))
	err := chunk(norm, func(part []string) error {
		in, args := db.InKeys(part)
		// No ORDER BY: on SQLite without statistics it makes the planner walk
		// the (account_id, id) index over every client of the account instead
		// of looking the e-mails up; the oldest is picked here instead.
		found, err := query(ctx, q, `c.account_id = ? AND c.email_norm IN `+in, append([]any{acct.ID}, args...)...)
		for _, c := range found {
			k := NormEmail(c.Email)
			if prev, seen := out[k]; !seen || c.ID < prev.ID {
				out[k] = c
			}
		}
		return err
	})
	return out, err
}

// normEmails returns the distinct NormEmail forms of emails.
func normEmails(emails []string) []string {
	norm := make([]string, 0, len(emails))
	for _, e := range emails {
		norm = append(norm, NormEmail(e))
	}
	return dedupe(norm)
}

func dedupe[T comparable](vals []T) []T {
	seen := make(map[T]bool, len(vals))
	out := make([]T, 0, len(vals))
	var zero T
	for _, v := range vals {
		if v != zero && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// New is a client to create.
type New struct {
	FirstName, LastName string
	Phone               phone.Number
	Email               string
	Company             string
	Timezone            string
	Data                map[string]any
	// DataJSON is Data encoded, when the caller has it already (an ingest
	// batch encodes it to check its size); empty: encoded on insert.
	DataJSON   string
	LeadValue  *float64
	NationalID string // the stored form (NationalID), or ""
}

// InsertMany creates clients with one multi-row statement and returns their
// ids in order. The caller holds LockKeys for their phones and e-mails, so
// no concurrent writer can have taken one since the caller looked them up.
func InsertMany(ctx context.Context, tx *db.Tx, acct account.Account, clients []New, now time.Time) ([]int64, error) {
	if len(clients) == 0 {
		return nil, nil
	}
	ids, err := tx.Dialect().ReserveIDs(ctx, tx, "clients", len(clients))
	if err != nil {
		return nil, err
	}
	return ids, InsertWithIDs(ctx, tx, acct, ids, clients, now)
}

// InsertWithIDs is InsertMany with the ids reserved by the caller
// (db.Dialect.ReserveIDsOf, with other tables' ids in the same round
// trip): clients[i] gets ids[i].
func InsertWithIDs(ctx context.Context, tx *db.Tx, acct account.Account, ids []int64, clients []New, now time.Time) error {
	if len(ids) != len(clients) {
		return fmt.Errorf("insert clients: %d ids for %d clients", len(ids), len(clients))
	}
	if len(clients) == 0 {
		return nil
	}
	rows := make([][]any, len(clients))
	for i, c := range clients {
		rows[i] = insertRow(ids[i], acct, c, now)
	}
	err := db.InsertMany(ctx, tx, `INSERT INTO clients (id, account_id, first_name, last_name, name_search, search_text, phone_cc, phone_national,
		email, email_norm, company, timezone, data, lead_value, national_id, created_at, updated_at)`, rows, "")
	if err != nil {
		return fmt.Errorf("insert clients: %w", err)
	}
	return nil
}

func insertRow(id int64, acct account.Account, c New, now time.Time) []any {
	var cc, national, email, emailNorm any
	if !c.Phone.IsZero() {
		cc, national = c.Phone.CountryCode, c.Phone.National
	}
	if e := strings.TrimSpace(c.Email); e != "" {
		email, emailNorm = e, NormEmail(e)
	}
	encoded := c.DataJSON
	if encoded == "" {
		data := c.Data
		if data == nil {
			data = map[string]any{}
		}
		b, _ := json.Marshal(data)
		encoded = string(b)
	}
	var lead any
	if c.LeadValue != nil {
		lead = *c.LeadValue
	}
	return []any{id, acct.ID, strings.TrimSpace(c.FirstName), strings.TrimSpace(c.LastName), SearchName(c.FirstName, c.LastName),
		SearchText(c.FirstName, c.LastName, c.Email, c.NationalID), cc, national, email, emailNorm, db.Null(strings.TrimSpace(c.Company)), db.Null(c.Timezone), encoded, lead,
		c.NationalID, db.Micros(now), db.Micros(now)}
}

// Keys are what can make two transactions of one account create or merge
// the same client: national phone digits, normalised e-mails and client ids
// named by the request.
type Keys struct {
	Nationals []string
	Emails    []string
	IDs       []int64
}

// LockKeys serialises the transactions that may create or merge clients
// with the same phone, e-mail or id, so "look up, then create what is
// missing" can never race into a duplicate or a unique-key failure, while
// transactions about different clients of one account run side by side.
// On PostgreSQL it takes one transaction-scoped advisory lock per key, all
// in one statement and in ascending order (two batches never wait for each
// other in a circle); the unique phone index stays the last word. SQLite
// needs nothing: its write transactions (BEGIN IMMEDIATE) run one at a
// time.
func LockKeys(ctx context.Context, tx *db.Tx, acct account.Account, k Keys) error {
	if tx.Dialect().Engine != db.Postgres {
		return nil
	}
	return advisoryLocks(ctx, tx, KeyLocks(acct, k))
}

// KeyLocks are the advisory locks LockKeys takes for k, in the order it
// takes them (ascending, each once), for a caller that takes them in a
// statement of its own together with another lock.
func KeyLocks(acct account.Account, k Keys) []int64 {
	keys := make([]int64, 0, len(k.Nationals)+len(k.Emails)+len(k.IDs))
	for _, n := range k.Nationals {
		if n != "" {
			keys = append(keys, lockKey(acct, "p", n))
		}
	}
	for _, e := range k.Emails {
		if e = NormEmail(e); e != "" {
			keys = append(keys, lockKey(acct, "e", e))
		}
	}
	for _, id := range k.IDs {
		keys = append(keys, lockKey(acct, "i", strconv.FormatInt(id, 10)))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// LockByIDs locks the clients of acct with these ids until the transaction
// ends and returns them as stored now, for a merge that must start from the
// latest values: another batch may have reached the same client by another
// key (its e-mail, where this one came by phone) and merged into it since
// the caller's lookup. On PostgreSQL these are row locks (SELECT … FOR
// UPDATE in id order, so two batches never wait for each other in a circle,
// and no slot of the shared lock table is used); SQLite's single writer
// needs none.
func LockByIDs(ctx context.Context, tx *db.Tx, acct account.Account, ids []int64) (map[int64]Client, error) {
	if tx.Dialect().Engine != db.Postgres {
		return ByIDs(ctx, tx, acct, ids)
	}
	out := make(map[int64]Client, len(ids))
	err := chunk(dedupe(ids), func(part []int64) error {
		in, args := db.InKeys(part)
		found, err := query(ctx, tx, `c.account_id = ? AND c.id IN `+in+` ORDER BY c.id FOR UPDATE`, append([]any{acct.ID}, args...)...)
		for _, c := range found {
			out[c.ID] = c
		}
		return err
	})
	return out, err
}

// lockKey is the advisory lock of one key: FNV-1a (64 bits) of
// "clients/<account id>/<kind>/<value>". Every instance must compute the
// same number for the same key, so the formula never changes
// (TestLockKeyFormula); it is hashed here without a hasher or a formatted
// string, as a batch takes about a thousand of them.
func lockKey(acct account.Account, kind, v string) int64 {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	var num [20]byte
	h := uint64(offset64)
	add := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime64
		}
	}
	add("clients/")
	for _, c := range strconv.AppendInt(num[:0], acct.ID, 10) {
		h = (h ^ uint64(c)) * prime64
	}
	add("/")
	add(kind)
	add("/")
	add(v)
	return int64(h)
}

// advisoryLocks takes the keys (ascending, from KeyLocks) in their order in
// one round trip (unnest yields the array in order and the aggregate takes
// the locks row by row; counting them sends back one row instead of one
// per key).
func advisoryLocks(ctx context.Context, tx *db.Tx, keys []int64) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `SELECT COUNT(pg_advisory_xact_lock(k)) FROM unnest(?::bigint[]) AS t(k)`, keys)
	return err
}

// PhoneConflict is a phone whose national digits belong to a client stored
// under another country code: never matched silently.
type PhoneConflict struct {
	ClientID int64
}

func (e *PhoneConflict) Error() string {
	return fmt.Sprintf("the national digits of this phone belong to client %d under another country code", e.ClientID)
}

// MatchOrCreateByPhone is the single-object rule of booking and the waiting
// list: the client owning the phone's national digits is used as stored;
// otherwise one is created from n. A match under another country code is a
// *PhoneConflict. The caller holds LockKeys for the phone.
func MatchOrCreateByPhone(ctx context.Context, tx *db.Tx, acct account.Account, n New, now time.Time) (c Client, created bool, err error) {
	found, err := ByNationals(ctx, tx, acct, []string{n.Phone.National})
	if err != nil {
		return Client{}, false, err
	}
	if c, ok := found[n.Phone.National]; ok {
		if c.Phone.CountryCode != n.Phone.CountryCode {
			return Client{}, false, &PhoneConflict{ClientID: c.ID}
		}
		return c, false, nil
	}
	ids, err := InsertMany(ctx, tx, acct, []New{n}, now)
	if err != nil {
		return Client{}, false, err
	}
	c, err = Get(ctx, tx, acct, ids[0])
	return c, true, err
}
