package workspace

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/readcache"
	"github.com/frontdesk/frontdesk/internal/secrets"
)

// Result is what apply prints (README, "Commands").
type Result struct {
	Account struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
	} `json:"account"`
	APIKeys map[string]string `json:"api_keys"`
	IDs     IDs               `json:"ids"`
}

// IDs maps file keys to the ids the server assigned.
type IDs struct {
	Services        map[string]int64  `json:"services"`
	Professionals   map[string]int64  `json:"professionals"`
	EventTypes      map[string]int64  `json:"event_types"`
	Users           map[string]int64  `json:"users"`
	AIAgents        map[string]int64  `json:"ai_agents"`
	DispositionTags map[string]int64  `json:"disposition_tags"`
	Waitlists       map[string]int64  `json:"waitlists"`
	Pipelines       map[string]int64  `json:"pipelines"`
	Stages          map[string]int64  `json:"stages"`
	InputNodes      map[string]string `json:"input_nodes"`
	Clients         map[string]int64  `json:"clients"`
	Conversations   map[string]int64  `json:"conversations"`
	Channels        map[string]string `json:"channels"` // key -> uuid (the callback URLs' id)
	Resources       map[string]int64  `json:"resources,omitempty"`
}

// PasswordHasher turns a plaintext password into its stored hash; nil keeps
// passwords out of the store.
type PasswordHasher func(string) (string, error)

// Applier applies workspace files.
type Applier struct {
	DB           *db.DB
	Now          func() time.Time
	HashPassword PasswordHasher
	// Secrets seals webhook secrets at rest; nil (no FRONTDESK_SECRET_KEY)
	// stores them as they are.
	Secrets *secrets.Box
	// Getenv reads {env: NAME} credential values (nil: none are set).
	Getenv func(string) string
	// Targets is the server's outbound policy the file's webhook URLs,
	// channel API addresses and SMTP hosts must pass (zero: public only).
	Targets outbound.Policy
}

// Apply parses, validates and applies data in one transaction.
func (a *Applier) Apply(ctx context.Context, data []byte) (*Result, error) {
	f, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return a.ApplyFile(ctx, f)
}

// ApplyFile validates and applies f in one transaction. Nothing is written
// when the file is invalid.
func (a *Applier) ApplyFile(ctx context.Context, f *File) (*Result, error) {
	var res *Result
	err := a.DB.Transact(ctx, func(tx *db.Tx) error {
		known, err := loadKnown(ctx, tx, f.Account.Slug)
		if err != nil {
			return err
		}
		known.Targets = a.Targets
		if err := Validate(f, known); err != nil {
			return err
		}
		creds, err := a.resolveCredentials(f)
		if err != nil {
			return err
		}
		ap := &applier{tx: tx, f: f, now: a.Now().UTC().Truncate(time.Microsecond), hash: a.HashPassword, box: a.Secrets, creds: creds, targets: a.Targets}
		res, err = ap.apply(ctx)
		if err == nil {
			// The file may change anything the catalogue snapshots hold.
			readcache.Changed(tx, readcache.Calendar, ap.acct.ID)
			readcache.Changed(tx, readcache.Pipelines, ap.acct.ID)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

type applier struct {
	tx   *db.Tx
	f    *File
	now  time.Time
	hash PasswordHasher
	box  *secrets.Box
	// creds are the channels' credentials, resolved (by channel key)
	creds   map[string]map[string]string
	targets outbound.Policy
	acct    account.Account
	res     *Result
	// stage ids by pipeline key then stage key
	stages map[string]map[string]int64
}

func (ap *applier) apply(ctx context.Context) (*Result, error) {
	ap.res = &Result{APIKeys: map[string]string{}, IDs: IDs{
		Services: map[string]int64{}, Professionals: map[string]int64{}, EventTypes: map[string]int64{},
		Users: map[string]int64{}, AIAgents: map[string]int64{}, DispositionTags: map[string]int64{},
		Waitlists: map[string]int64{}, Pipelines: map[string]int64{}, Stages: map[string]int64{},
		InputNodes: map[string]string{}, Clients: map[string]int64{}, Conversations: map[string]int64{},
		Channels: map[string]string{}, Resources: map[string]int64{},
	}}
	steps := []func(context.Context) error{
		ap.account, ap.apiKeys, ap.users, ap.agents, ap.eventTypes, ap.professionals, ap.userProfessionals, ap.resources, ap.services,
		ap.waitlists, ap.webhooks, ap.dispositions, ap.pipelines, ap.clients, ap.conversations, ap.channels, ap.messaging, ap.bookingPage,
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	ap.res.Account.ID = ap.acct.ID
	ap.res.Account.Slug = ap.acct.Slug
	return ap.res, nil
}

// upsert inserts a row or updates it only where a value differs, so a
// repeated apply writes nothing, and returns the row's id. keys are the
// conflict columns (with their values); set are compared and updated;
// insertOnly are written on insert alone.
func (ap *applier) upsert(ctx context.Context, table, conflictWhere string, keys, set, insertOnly []col) (int64, error) {
	all := append(append(append([]col{}, keys...), set...), insertOnly...)
	names := make([]string, len(all))
	args := make([]any, len(all))
	for i, c := range all {
		names[i], args[i] = c.name, c.val
	}
	keyNames := make([]string, len(keys))
	for i, c := range keys {
		keyNames[i] = c.name
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (%s)%s ", table, strings.Join(names, ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(all)), ", "), strings.Join(keyNames, ", "), conflictWhere)
	if len(set) == 0 {
		q += "DO NOTHING"
	} else {
		assigns := make([]string, len(set))
		mine := make([]string, len(set))
		theirs := make([]string, len(set))
		for i, c := range set {
			assigns[i] = c.name + " = excluded." + c.name
			mine[i] = table + "." + c.name
			theirs[i] = "excluded." + c.name
		}
		q += fmt.Sprintf("DO UPDATE SET %s WHERE (%s) IS DISTINCT FROM (%s)", strings.Join(assigns, ", "),
			strings.Join(mine, ", "), strings.Join(theirs, ", "))
	}
	if _, err := ap.tx.Exec(ctx, q, args...); err != nil {
		return 0, fmt.Errorf("upsert %s: %w", table, err)
	}
	where := make([]string, len(keys))
	keyArgs := make([]any, len(keys))
	for i, c := range keys {
		where[i], keyArgs[i] = c.name+" = ?", c.val
	}
	var id int64
	if err := ap.tx.QueryRow(ctx, fmt.Sprintf("SELECT id FROM %s WHERE %s", table, strings.Join(where, " AND ")), keyArgs...).Scan(&id); err != nil {
		return 0, fmt.Errorf("upsert %s: read id: %w", table, err)
	}
	return id, nil
}

type col struct {
	name string
	val  any
}

// column pairs a column name with the value to write there.
func column(name string, val any) col { return col{name, val} }

// fields sorts an object's columns by whether the file gave their key: a
// given one is compared and updated; one left out is written only when the
// row is created, with its default, so a partial file never resets a stored
// value.
type fields struct {
	set, insert []col
	err         error // the first JSON column that could not be encoded
}

func (f *fields) add(given bool, name string, val any) {
	if given {
		f.set = append(f.set, column(name, val))
	} else {
		f.insert = append(f.insert, column(name, val))
	}
}

// upsertFields is upsert with the columns of f; insertOnly is written on
// insert alone.
func (ap *applier) upsertFields(ctx context.Context, table, conflictWhere string, keys []col, f fields, insertOnly ...col) (int64, error) {
	if f.err != nil {
		return 0, f.err
	}
	return ap.upsert(ctx, table, conflictWhere, keys, f.set, append(f.insert, insertOnly...))
}

// addJSON is add for a TEXT JSON column.
func (f *fields) addJSON(given bool, name string, v any) {
	text, err := db.JSONText(v)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("%s: %w", name, err)
	}
	f.add(given, name, text)
}

func (ap *applier) owned(key string) []col {
	return []col{column("account_id", ap.acct.ID), column("file_key", key)}
}

// idOf finds the id of an object by file key: from this run, else from the
// store (an earlier file).
func (ap *applier) idOf(ctx context.Context, table string, ids map[string]int64, key string) (int64, error) {
	if id, ok := ids[key]; ok {
		return id, nil
	}
	var id int64
	err := ap.tx.QueryRow(ctx, fmt.Sprintf("SELECT id FROM %s WHERE account_id = ? AND file_key = ?", table), ap.acct.ID, key).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", table, key, err)
	}
	ids[key] = id
	return id, nil
}

// strOr is s, or def when s is empty.
func strOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
