package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/readcache"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/texts"
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
		Channels: map[string]string{},
	}}
	steps := []func(context.Context) error{
		ap.account, ap.apiKeys, ap.users, ap.agents, ap.eventTypes, ap.professionals, ap.services,
		ap.waitlists, ap.webhooks, ap.dispositions, ap.pipelines, ap.clients, ap.conversations, ap.channels, ap.messaging,
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

func c(name string, val any) col { return col{name, val} }

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
		f.set = append(f.set, c(name, val))
	} else {
		f.insert = append(f.insert, c(name, val))
	}
}

// addJSON is add for a TEXT JSON column.
func (f *fields) addJSON(given bool, name string, v any) {
	text, err := db.JSONText(v)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("%s: %w", name, err)
	}
	f.add(given, name, text)
}

// upsertFields is upsert with the columns of f; insertOnly is written on
// insert alone.
func (ap *applier) upsertFields(ctx context.Context, table, conflictWhere string, keys []col, f fields, insertOnly ...col) (int64, error) {
	if f.err != nil {
		return 0, f.err
	}
	return ap.upsert(ctx, table, conflictWhere, keys, f.set, append(f.insert, insertOnly...))
}

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
	id, err := ap.upsertFields(ctx, "accounts", "", []col{c("slug", a.Slug)}, fs,
		c("created_at", db.Micros(ap.now)), c("updated_at", db.Micros(ap.now)))
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

func (ap *applier) owned(key string) []col {
	return []col{c("account_id", ap.acct.ID), c("file_key", key)}
}

func (ap *applier) users(ctx context.Context) error {
	for _, u := range ap.f.Users {
		var fs fields
		fs.add(u.keys.has("name"), "name", u.Name)
		fs.add(u.keys.has("email"), "email", strings.TrimSpace(u.Email))
		fs.add(u.keys.has("active"), "active", boolOr(u.Active, true))
		fs.add(u.keys.has("role"), "role", strOr(u.Role, "owner"))
		fs.add(u.keys.has("language"), "language", u.Language)
		id, err := ap.upsertFields(ctx, "users", "", ap.owned(u.Key), fs, c("created_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		if u.Password != "" && ap.hash != nil {
			if err := ap.setPassword(ctx, id, u.Password); err != nil {
				return err
			}
		}
		ap.res.IDs.Users[u.Key] = id
	}
	return nil
}

// setPassword changes the user's password only when the file's password
// does not match the stored hash (a bcrypt comparison: the same password
// hashes differently every time), so a re-applied file writes nothing and
// signs nobody out; a changed one goes through account.ChangePassword, which
// ends the user's dashboard sessions.
func (ap *applier) setPassword(ctx context.Context, userID int64, plaintext string) error {
	var current *string
	if err := ap.tx.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = ?`, userID).Scan(&current); err != nil {
		return err
	}
	if current != nil && password.Matches(*current, plaintext) {
		return nil
	}
	h, err := ap.hash(plaintext)
	if err != nil {
		return err
	}
	return account.ChangePassword(ctx, ap.tx, ap.acct, userID, h)
}

func (ap *applier) agents(ctx context.Context) error {
	for _, a := range ap.f.AIAgents {
		var fs fields
		fs.add(a.keys.has("name"), "name", a.Name)
		id, err := ap.upsertFields(ctx, "ai_agents", "", ap.owned(a.Key), fs, c("created_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		ap.res.IDs.AIAgents[a.Key] = id
	}
	return nil
}

func (ap *applier) eventTypes(ctx context.Context) error {
	for _, et := range ap.f.EventTypes {
		var fs fields
		fs.add(et.keys.has("name"), "name", et.Name)
		fs.add(et.keys.has("color"), "color", et.Color)
		fs.add(et.keys.has("active"), "active", boolOr(et.Active, true))
		id, err := ap.upsertFields(ctx, "event_types", "", ap.owned(et.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.EventTypes[et.Key] = id
	}
	return nil
}

func (ap *applier) professionals(ctx context.Context) error {
	for _, p := range ap.f.Professionals {
		hours := map[string][]string{}
		for d, spans := range p.WorkingHours {
			hours[d] = append([]string{}, spans...)
			sort.Strings(hours[d])
		}
		off := p.TimeOff
		if off == nil {
			off = []TimeOffSpec{}
		}
		var fs fields
		fs.add(p.keys.has("name"), "name", p.Name)
		fs.add(p.keys.has("active"), "active", boolOr(p.Active, true))
		fs.addJSON(p.keys.has("working_hours"), "working_hours", hours)
		fs.addJSON(p.keys.has("time_off"), "time_off", off)
		id, err := ap.upsertFields(ctx, "professionals", "", ap.owned(p.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.Professionals[p.Key] = id
	}
	return nil
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

func (ap *applier) services(ctx context.Context) error {
	for _, s := range ap.f.Services {
		dur := s.DefaultDurationMinutes
		if dur == 0 {
			dur = 30
		}
		var fs fields
		fs.add(s.keys.has("name"), "name", s.Name)
		fs.add(s.keys.has("color"), "color", s.Color)
		fs.add(s.keys.has("default_duration_minutes"), "default_duration_minutes", dur)
		fs.add(s.keys.has("active"), "active", boolOr(s.Active, true))
		id, err := ap.upsertFields(ctx, "services", "", ap.owned(s.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.Services[s.Key] = id
		for _, pk := range s.Professionals {
			pid, err := ap.idOf(ctx, "professionals", ap.res.IDs.Professionals, pk)
			if err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO service_professionals (account_id, service_id, professional_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ap.acct.ID, id, pid); err != nil {
				return err
			}
		}
		for _, ek := range s.EventTypes {
			eid, err := ap.idOf(ctx, "event_types", ap.res.IDs.EventTypes, ek)
			if err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO service_event_types (account_id, service_id, event_type_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ap.acct.ID, id, eid); err != nil {
				return err
			}
		}
	}
	return nil
}

func durationSeconds(s string, def time.Duration) int64 {
	if s == "" {
		return int64(def / time.Second)
	}
	d, _ := ParseDuration(s)
	return int64(d / time.Second)
}

func (ap *applier) waitlists(ctx context.Context) error {
	for _, w := range ap.f.Waitlists {
		horizon, maxOffers := 30, 3
		if w.HorizonDays != nil {
			horizon = *w.HorizonDays
		}
		if w.MaxOffers != nil {
			maxOffers = *w.MaxOffers
		}
		active := boolOr(w.Active, true)
		runEvery := durationSeconds(w.RunEvery, 15*time.Minute)
		var next any
		if active {
			next = db.Micros(ap.now.Add(time.Duration(runEvery) * time.Second))
		}
		has := w.keys.has
		var fs fields
		fs.add(has("name"), "name", w.Name)
		fs.add(has("active"), "active", active)
		fs.add(has("horizon_days"), "horizon_days", horizon)
		fs.add(has("run_every"), "run_every_seconds", runEvery)
		fs.add(has("seat_ttl"), "seat_ttl_seconds", durationSeconds(w.SeatTTL, 2*time.Hour))
		fs.add(has("max_offers"), "max_offers", maxOffers)
		id, err := ap.upsertFields(ctx, "waitlists", "", ap.owned(w.Key), fs,
			c("created_at", db.Micros(ap.now)), c("next_run_at", next))
		if err != nil {
			return err
		}
		// A list switched on or off by the file gets or loses its schedule
		// (from the stored interval: the file may not give it).
		if _, err := ap.tx.Exec(ctx, `UPDATE waitlists SET next_run_at = CASE WHEN active THEN CAST(? AS BIGINT) + CAST(run_every_seconds AS BIGINT) * 1000000 ELSE NULL END
			WHERE id = ? AND ((active AND next_run_at IS NULL) OR (NOT active AND next_run_at IS NOT NULL))`, db.Micros(ap.now), id); err != nil {
			return err
		}
		ap.res.IDs.Waitlists[w.Key] = id
		for _, sk := range w.Services {
			sid, err := ap.idOf(ctx, "services", ap.res.IDs.Services, sk)
			if err != nil {
				return err
			}
			if _, err := ap.tx.Exec(ctx, `INSERT INTO waitlist_services (account_id, waitlist_id, service_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, ap.acct.ID, id, sid); err != nil {
				return err
			}
		}
	}
	return nil
}

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

func (ap *applier) dispositions(ctx context.Context) error {
	for _, d := range ap.f.DispositionTags {
		var fs fields
		fs.add(d.keys.has("name"), "name", d.Name)
		fs.add(d.keys.has("color"), "color", d.Color)
		id, err := ap.upsertFields(ctx, "disposition_tags", "", ap.owned(d.Key), fs)
		if err != nil {
			return err
		}
		ap.res.IDs.DispositionTags[d.Key] = id
	}
	return nil
}

func (ap *applier) pipelines(ctx context.Context) error {
	ap.stages = map[string]map[string]int64{}
	for pi, p := range ap.f.Pipelines {
		status := p.Status
		if status == "" {
			status = "active"
		}
		var desc any
		if p.Description != nil {
			desc = *p.Description
		}
		var fs fields
		fs.add(p.keys.has("name"), "name", p.Name)
		fs.add(p.keys.has("description"), "description", desc)
		fs.add(p.keys.has("status"), "status", status)
		pid, err := ap.upsertFields(ctx, "pipelines", "", ap.owned(p.Key), fs,
			c("created_at", db.Micros(ap.now)), c("updated_at", db.Micros(ap.now)))
		if err != nil {
			return err
		}
		ap.res.IDs.Pipelines[p.Key] = pid
		stageIDs, err := ap.stageIDs(ctx, p.Key, pid)
		if err != nil {
			return err
		}
		// The file's order is the stages' order when it lists every stage
		// the pipeline has; a partial list keeps the stored order and puts
		// new stages last.
		listed := map[string]bool{}
		for _, s := range p.Stages {
			listed[s.Key] = true
		}
		ordered := true
		for k := range stageIDs {
			ordered = ordered && listed[k]
		}
		var last int
		if err := ap.tx.QueryRow(ctx, `SELECT COALESCE(MAX(position), 0) FROM stages WHERE pipeline_id = ?`, pid).Scan(&last); err != nil {
			return err
		}
		// Stages first, then the rules that refer to them by id.
		for i, s := range p.Stages {
			has := s.keys.has
			st := s.StageType
			if st == "" {
				st = "open"
			}
			autos := s.Automations
			if autos == nil {
				autos = []AutomationSpec{}
			}
			var stored string
			if _, exists := stageIDs[s.Key]; exists && has("automations") {
				if err := ap.tx.QueryRow(ctx, `SELECT automations FROM stages WHERE id = ?`, stageIDs[s.Key]).Scan(&stored); err != nil {
					return err
				}
			}
			autoText, err := ap.sealAutomations(stored, autos)
			if err != nil {
				return &Error{Problems: []string{fmt.Sprintf("pipelines[%d].stages[%d].automations: %v", pi, i, err)}}
			}
			position := i + 1
			if _, exists := stageIDs[s.Key]; !ordered && !exists {
				last++
				position = last
			}
			var fs fields
			fs.add(has("name"), "name", s.Name)
			fs.add(has("stage_type"), "stage_type", st)
			fs.add(ordered, "position", position)
			fs.add(has("color"), "color", s.Color)
			fs.add(has("entry_point"), "is_entry_point", s.EntryPoint)
			fs.add(has("automations"), "automations", autoText)
			id, err := ap.upsertFields(ctx, "stages", "", []col{c("pipeline_id", pid), c("file_key", s.Key)}, fs,
				c("account_id", ap.acct.ID))
			if err != nil {
				return err
			}
			stageIDs[s.Key] = id
			ap.res.IDs.Stages[p.Key+"/"+s.Key] = id
		}
		for _, s := range p.Stages {
			if !s.keys.has("allowed_targets") {
				continue
			}
			var allowed any
			if s.AllowedTargets != nil {
				ids := make([]int64, 0, len(*s.AllowedTargets))
				for _, t := range *s.AllowedTargets {
					ids = append(ids, stageIDs[t])
				}
				if allowed, err = db.JSONText(ids); err != nil {
					return err
				}
			}
			if _, err := ap.tx.Exec(ctx, `UPDATE stages SET allowed_targets = ? WHERE id = ? AND allowed_targets IS DISTINCT FROM ?`,
				allowed, stageIDs[s.Key], allowed); err != nil {
				return err
			}
		}
		for _, n := range p.InputNodes {
			if err := ap.inputNode(ctx, p.Key, pid, stageIDs, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// stageIDs loads the stage ids a pipeline already has (for references to
// stages that this file does not list).
func (ap *applier) stageIDs(ctx context.Context, pipelineKey string, pipelineID int64) (map[string]int64, error) {
	if m, ok := ap.stages[pipelineKey]; ok {
		return m, nil
	}
	m := map[string]int64{}
	rows, err := ap.tx.Query(ctx, `SELECT file_key, id FROM stages WHERE account_id = ? AND pipeline_id = ?`, ap.acct.ID, pipelineID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, err
		}
		m[k] = id
	}
	ap.stages[pipelineKey] = m
	return m, rows.Err()
}

func (ap *applier) inputNode(ctx context.Context, pipelineKey string, pid int64, stageIDs map[string]int64, n InputNodeSpec) error {
	typ := n.Type
	if typ == "" {
		typ = "api"
	}
	has := n.keys.has
	strategy, pool := "none", []int64{}
	// assignment: null (or left out of a new node) is no assignment; a
	// given assignment changes the keys it gives.
	hasStrategy, hasPool := has("assignment"), has("assignment")
	if n.Assignment != nil {
		hasStrategy, hasPool = n.Assignment.keys.has("strategy"), n.Assignment.keys.has("pool")
		if n.Assignment.Strategy != "" {
			strategy = n.Assignment.Strategy
		}
		for _, uk := range n.Assignment.Pool {
			uid, err := ap.idOf(ctx, "users", ap.res.IDs.Users, uk)
			if err != nil {
				return err
			}
			pool = append(pool, uid)
		}
	}
	var target any
	if n.TargetStage != "" {
		target = stageIDs[n.TargetStage]
	}
	// A generated uuid is generated once: an existing node keeps its own.
	var existing string
	err := ap.tx.QueryRow(ctx, `SELECT uuid FROM input_nodes WHERE pipeline_id = ? AND file_key = ?`, pid, n.Key).Scan(&existing)
	if err != nil && !db.IsNoRows(err) {
		return err
	}
	uuid := strings.ToLower(n.UUID)
	if uuid == "" {
		uuid = existing
	}
	if uuid == "" {
		uuid = db.NewUUID()
	}
	var fs fields
	fs.add(has("uuid"), "uuid", uuid)
	fs.add(has("name"), "name", n.Name)
	fs.add(has("type"), "node_type", typ)
	fs.add(has("active"), "is_active", boolOr(n.Active, true))
	fs.add(has("target_stage"), "target_stage_id", target)
	fs.add(has("default_lead_value"), "default_lead_value", n.DefaultLeadValue)
	fs.add(hasStrategy, "assignment_strategy", strategy)
	fs.addJSON(hasPool, "assignment_pool", pool)
	if _, err := ap.upsertFields(ctx, "input_nodes", "", []col{c("pipeline_id", pid), c("file_key", n.Key)}, fs,
		c("account_id", ap.acct.ID), c("created_at", db.Micros(ap.now))); db.IsUniqueViolation(err) {
		// Node uuids are unique across accounts: the caller's to fix, not
		// an internal error.
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "uuid", "uuid": uuid},
			"pipelines %s, input node %s: uuid %s is already used by another input node", pipelineKey, n.Key, uuid)
	} else if err != nil {
		return err
	}
	ap.res.IDs.InputNodes[pipelineKey+"/"+n.Key] = uuid
	return nil
}

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
		// The search name is made of both names: a file that gives one
		// keeps the stored other.
		first, last := cl.FirstName, cl.LastName
		if !has("first_name") || !has("last_name") {
			var f, l string
			err := ap.tx.QueryRow(ctx, `SELECT first_name, last_name FROM clients WHERE account_id = ? AND file_key = ?`, ap.acct.ID, cl.Key).Scan(&f, &l)
			if err != nil && !db.IsNoRows(err) {
				return err
			}
			if !has("first_name") {
				first = f
			}
			if !has("last_name") {
				last = l
			}
		}
		var fs fields
		fs.add(has("first_name"), "first_name", cl.FirstName)
		fs.add(has("last_name"), "last_name", cl.LastName)
		fs.add(has("first_name") || has("last_name"), "name_search", contact.SearchName(first, last))
		fs.add(has("phone"), "phone_cc", cc)
		fs.add(has("phone"), "phone_national", national)
		fs.add(has("email"), "email", email)
		fs.add(has("email"), "email_norm", emailNorm)
		fs.add(has("company"), "company", company)
		fs.add(has("timezone"), "timezone", tz)
		fs.addJSON(has("data"), "data", data)
		id, err := ap.upsertFields(ctx, "clients", " WHERE file_key IS NOT NULL", ap.owned(cl.Key), fs,
			c("created_at", db.Micros(ap.now)), c("updated_at", db.Micros(ap.now)))
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
		if err := ap.tx.QueryRow(ctx, `SELECT id FROM stages WHERE pipeline_id = ? ORDER BY is_entry_point DESC, position, id LIMIT 1`, pid).Scan(&stageID); err != nil {
			return fmt.Errorf("pipeline %q has no stages: %w", pl.Pipeline, err)
		}
	}
	var cardID int64
	err = ap.tx.QueryRow(ctx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, status, entry_source, added_at, stage_entered_at, updated_at)
		VALUES (?, ?, ?, ?, 'active', 'workspace', ?, ?, ?) ON CONFLICT (pipeline_id, client_id) WHERE status = 'active' DO NOTHING RETURNING id`,
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

func (ap *applier) conversations(ctx context.Context) error {
	if len(ap.f.Conversations) == 0 {
		return nil
	}
	refs := ConversationRefs{Agents: ap.res.IDs.AIAgents, Users: ap.res.IDs.Users, Dispositions: ap.res.IDs.DispositionTags}
	for _, cv := range ap.f.Conversations {
		id, err := UpsertConversation(ctx, ap.tx, ap.acct, cv, refs, ap.now)
		if err != nil {
			return err
		}
		ap.res.IDs.Conversations[cv.Key] = id
	}
	return nil
}

// strOr is s, or def when s is empty.
func strOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
