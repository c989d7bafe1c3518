package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/texts"
)

// Settings are an account's messaging settings (the workspace file's
// account.language and messaging).
type Settings struct {
	Language       string            `json:"-"`
	DefaultChannel string            `json:"default_channel,omitempty"`
	Routes         map[string]string `json:"routes,omitempty"`
	QuietHours     string            `json:"quiet_hours,omitempty"`
}

// ChannelFor returns the key of the channel a message kind goes through:
// its route, else the default channel ("" when neither is set).
func (s Settings) ChannelFor(kind string) string {
	if k := s.Routes[kind]; k != "" {
		return k
	}
	return s.DefaultChannel
}

// LoadSettings reads acct's language and messaging settings.
func LoadSettings(ctx context.Context, q db.Querier, acct account.Account) (Settings, error) {
	var lang, raw string
	if err := q.QueryRow(ctx, `SELECT language, messaging FROM accounts WHERE id = ?`, acct.ID).Scan(&lang, &raw); err != nil {
		return Settings{}, fmt.Errorf("messaging settings: %w", err)
	}
	var s Settings
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return Settings{}, fmt.Errorf("messaging settings: %w", err)
		}
	}
	s.Language = texts.Lang(lang)
	return s, nil
}

const selectChannel = `SELECT id, account_id, uuid, file_key, type, provider, from_address, api_base, credentials, templates, active FROM channels`

func scanChannel(row interface{ Scan(...any) error }, box *secrets.Box, withCredentials bool) (Channel, error) {
	var (
		ch           Channel
		sealed, tpls string
	)
	if err := row.Scan(&ch.ID, &ch.AccountID, &ch.UUID, &ch.Key, &ch.Type, &ch.Provider, &ch.From, &ch.APIBase, &sealed, &tpls, &ch.Active); err != nil {
		return ch, err
	}
	if tpls != "" {
		if err := json.Unmarshal([]byte(tpls), &ch.Templates); err != nil {
			return ch, fmt.Errorf("channel %q templates: %w", ch.Key, err)
		}
	}
	if withCredentials {
		creds, err := OpenCredentials(box, sealed)
		if err != nil {
			return ch, &credentialsError{fmt.Errorf("channel %q credentials: %w", ch.Key, err)}
		}
		ch.Credentials = creds
	}
	return ch, nil
}

type credentialsError struct{ error }

func (e *credentialsError) Unwrap() error { return e.error }

// OpenCredentials opens a sealed credentials object.
func OpenCredentials(box *secrets.Box, sealed string) (map[string]string, error) {
	if sealed == "" {
		return map[string]string{}, nil
	}
	plain, err := box.Open(sealed)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	if err := json.Unmarshal([]byte(plain), &out); err != nil {
		return nil, fmt.Errorf("credentials are not a JSON object")
	}
	return out, nil
}

// ByUUID finds a channel by the uuid of its callback URLs, with its
// credentials opened. The account comes from the channel: callbacks carry no
// key, the uuid is their tenant. An unknown uuid is NOT_FOUND.
func ByUUID(ctx context.Context, q db.Querier, box *secrets.Box, uuid string) (Channel, error) {
	if !isUUID(uuid) { // never reaches SQL: a NUL byte is an error on PostgreSQL
		return Channel{}, errs.New(errs.NotFound, "channel not found")
	}
	if len(uuid) > 64 {
		return Channel{}, errs.New(errs.NotFound, "channel not found")
	}
	ch, err := scanChannel(q.QueryRow(ctx, selectChannel+` WHERE uuid = ?`, strings.ToLower(uuid)), box, true)
	if db.IsNoRows(err) {
		return Channel{}, errs.New(errs.NotFound, "channel not found")
	}
	return ch, err
}

// ByKey finds one of acct's channels by its key, credentials opened.
func ByKey(ctx context.Context, q db.Querier, box *secrets.Box, acct account.Account, key string) (Channel, error) {
	return byKey(ctx, q, box, acct, key, true)
}

// ByID finds one of acct's channels by its id, credentials opened (the
// channel an outbox message went through).
func ByID(ctx context.Context, q db.Querier, box *secrets.Box, acct account.Account, id int64) (Channel, error) {
	ch, err := scanChannel(q.QueryRow(ctx, selectChannel+` WHERE account_id = ? AND id = ?`, acct.ID, id), box, true)
	var credErr *credentialsError
	if errors.As(err, &credErr) {
		return Channel{}, ErrCredentials
	}
	if db.IsNoRows(err) {
		return Channel{}, errs.New(errs.NotFound, "channel not found")
	}
	return ch, err
}

// ErrCredentials is stored credentials that do not open with the server's
// key (it changed, or is not set).
var ErrCredentials = errs.New(errs.ValidationError, "the channel's stored credentials do not open with this server's FRONTDESK_SECRET_KEY: give them again in the workspace file")

// ByKeyWithoutCredentials finds a channel without opening its credentials.
func ByKeyWithoutCredentials(ctx context.Context, q db.Querier, acct account.Account, key string) (Channel, error) {
	return byKey(ctx, q, nil, acct, key, false)
}

func byKey(ctx context.Context, q db.Querier, box *secrets.Box, acct account.Account, key string, withCredentials bool) (Channel, error) {
	ch, err := scanChannel(q.QueryRow(ctx, selectChannel+` WHERE account_id = ? AND file_key = ?`, acct.ID, key), box, withCredentials)
	var credErr *credentialsError
	if errors.As(err, &credErr) {
		return Channel{}, ErrCredentials
	}
	if db.IsNoRows(err) {
		return Channel{}, errs.WithDetails(errs.NotFound, map[string]any{"field": "channel"}, "no channel %q in this account", key)
	}
	return ch, err
}

// List returns acct's channels without their credentials (for pages and
// listings: credentials never leave the store).
func List(ctx context.Context, q db.Querier, acct account.Account) ([]Channel, error) {
	rows, err := q.Query(ctx, selectChannel+` WHERE account_id = ? ORDER BY file_key`, acct.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Channel
	for rows.Next() {
		ch, err := scanChannel(rows, nil, false)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, rows.Err()
}

// Save creates or updates acct's channel ch (matched by key) and returns
// its id and uuid. Credentials are sealed; a repeated save of the same
// values writes nothing (sealing is randomised, so they are compared opened).
// A new channel without a uuid gets newUUID.
func Save(ctx context.Context, tx *db.Tx, box *secrets.Box, acct account.Account, ch Channel, newUUID string, now time.Time) (int64, string, error) {
	tpls, _ := json.Marshal(ch.Templates)
	if ch.Templates == nil {
		tpls = []byte("{}")
	}
	cur, err := scanChannel(tx.QueryRow(ctx, selectChannel+` WHERE account_id = ? AND file_key = ?`, acct.ID, ch.Key), box, true)
	var credErr *credentialsError
	if errors.As(err, &credErr) {
		if ch.Credentials == nil {
			return 0, "", ErrCredentials
		}
		// New credentials replace ones that no longer open.
		cur, err = scanChannel(tx.QueryRow(ctx, selectChannel+` WHERE account_id = ? AND file_key = ?`, acct.ID, ch.Key), box, false)
		cur.Credentials = map[string]string{"": "unreadable"}
	}
	switch {
	case db.IsNoRows(err):
		sealed, err := sealCredentials(box, ch.Credentials)
		if err != nil {
			return 0, "", err
		}
		uuid := strings.ToLower(ch.UUID)
		if uuid == "" {
			uuid = newUUID
		}
		var id int64
		err = tx.QueryRow(ctx, `INSERT INTO channels (account_id, file_key, uuid, type, provider, from_address, api_base, credentials, templates, active, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			acct.ID, ch.Key, uuid, ch.Type, ch.Provider, ch.From, ch.APIBase, sealed, string(tpls), ch.Active, db.Micros(now), db.Micros(now)).Scan(&id)
		if db.IsUniqueViolation(err) {
			return 0, "", errs.WithDetails(errs.ValidationError, map[string]any{"field": "uuid"}, "channel uuid %s is already in use", uuid)
		}
		return id, uuid, err
	case err != nil:
		return 0, "", err
	}
	credsSame := maps.Equal(cur.Credentials, ch.Credentials)
	curTpls, _ := json.Marshal(cur.Templates)
	if cur.Templates == nil {
		curTpls = []byte("{}")
	}
	if credsSame && cur.Type == ch.Type && cur.Provider == ch.Provider && cur.From == ch.From && cur.APIBase == ch.APIBase &&
		string(curTpls) == string(tpls) && cur.Active == ch.Active {
		return cur.ID, cur.UUID, nil
	}
	sets, args := []string{"type = ?", "provider = ?", "from_address = ?", "api_base = ?", "templates = ?", "active = ?", "updated_at = ?"},
		[]any{ch.Type, ch.Provider, ch.From, ch.APIBase, string(tpls), ch.Active, db.Micros(now)}
	if !credsSame {
		sealed, err := sealCredentials(box, ch.Credentials)
		if err != nil {
			return 0, "", err
		}
		sets, args = append(sets, "credentials = ?"), append(args, sealed)
	}
	_, err = tx.Exec(ctx, `UPDATE channels SET `+strings.Join(sets, ", ")+` WHERE account_id = ? AND id = ?`, append(args, acct.ID, cur.ID)...)
	return cur.ID, cur.UUID, err
}

func sealCredentials(box *secrets.Box, creds map[string]string) (string, error) {
	if len(creds) == 0 {
		return "", nil
	}
	b, _ := json.Marshal(creds)
	return box.Seal(string(b))
}

// OptedOut reports whether a client opted out of a channel.
func OptedOut(ctx context.Context, q db.Querier, acct account.Account, clientID, channelID int64) (bool, error) {
	pair := ClientChannel{Client: clientID, Channel: channelID}
	opted, err := OptedOutOf(ctx, q, acct, []ClientChannel{pair})
	return opted[pair], err
}

// ClientChannel is a client and one of the account's channels.
type ClientChannel struct{ Client, Channel int64 }

// OptedOutOf returns which of pairs are opted out (the client replied STOP
// on the channel and has not replied START since), with one statement.
func OptedOutOf(ctx context.Context, q db.Querier, acct account.Account, pairs []ClientChannel) (map[ClientChannel]bool, error) {
	out := map[ClientChannel]bool{}
	if len(pairs) == 0 {
		return out, nil
	}
	want := make(map[ClientChannel]bool, len(pairs))
	var clients, chans []int64
	seen := map[int64]bool{}
	for _, p := range pairs {
		want[p] = true
		if !seen[p.Client] {
			seen[p.Client] = true
			clients = append(clients, p.Client)
		}
		if !slices.Contains(chans, p.Channel) {
			chans = append(chans, p.Channel)
		}
	}
	inClients, args := db.In(clients)
	inChans, chanArgs := db.In(chans)
	rows, err := q.Query(ctx, `SELECT client_id, channel_id FROM channel_consents
		WHERE account_id = ? AND opted_out AND client_id IN `+inClients+` AND channel_id IN `+inChans,
		append(append([]any{acct.ID}, args...), chanArgs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p ClientChannel
		if err := rows.Scan(&p.Client, &p.Channel); err != nil {
			return nil, err
		}
		if want[p] {
			out[p] = true
		}
	}
	return out, rows.Err()
}

// OptedOutSQL is OptedOutOf's rule as a condition, for a statement that
// checks it along with its own work: true when the client of SQL
// expression client opted out of the channel of expression channel, in the
// account of expression acct.
func OptedOutSQL(acct, client, channel string) string {
	return `EXISTS (SELECT 1 FROM channel_consents cc WHERE cc.account_id = ` + acct +
		` AND cc.client_id = ` + client + ` AND cc.channel_id = ` + channel + ` AND cc.opted_out)`
}

// SetConsent records an opt-out (out true) or opt-in; changed is false when
// the client was already in that state, so the answer is sent only once.
func SetConsent(ctx context.Context, tx *db.Tx, acct account.Account, clientID, channelID int64, out bool, now time.Time) (changed bool, err error) {
	cur, err := OptedOut(ctx, tx, acct, clientID, channelID)
	if err != nil {
		return false, err
	}
	if cur == out {
		return false, nil
	}
	col := "opted_in_at"
	if out {
		col = "opted_out_at"
	}
	_, err = tx.Exec(ctx, `INSERT INTO channel_consents (account_id, client_id, channel_id, opted_out, `+col+`) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (account_id, client_id, channel_id) DO UPDATE SET opted_out = excluded.opted_out, `+col+` = excluded.`+col,
		acct.ID, clientID, channelID, out, db.Micros(now))
	return err == nil, err
}

// QuietHours is a daily window ("21:00-09:00", in the account's zone) in
// which automation and sequence messages wait.
type QuietHours struct {
	From, To time.Duration // since midnight; From > To wraps midnight
	Set      bool
}

// QuietWindow is how long quiet hours may last: from a minute to 23 hours,
// so at least an hour a day is left for the messages they hold (held
// messages all leave when the window ends).
var QuietWindow = clock.Range{Min: time.Minute, Max: 23 * time.Hour}

// ParseQuietHours reads "HH:MM-HH:MM" ("" is no window) lasting within
// QuietWindow.
func ParseQuietHours(s string) (QuietHours, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return QuietHours{}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return QuietHours{}, fmt.Errorf("must look like 21:00-09:00")
	}
	from, err1 := clockTime(a)
	to, err2 := clockTime(b)
	if err1 != nil || err2 != nil || from == to {
		return QuietHours{}, fmt.Errorf("must look like 21:00-09:00 (two different times of day)")
	}
	if length := (to - from + 24*time.Hour) % (24 * time.Hour); !QuietWindow.Contains(length) {
		return QuietHours{}, fmt.Errorf("lasts %s: quiet hours last %s, leaving at least an hour a day for messages", clock.Short(length), QuietWindow)
	}
	return QuietHours{From: from, To: to, Set: true}, nil
}

func clockTime(s string) (time.Duration, error) {
	t, err := time.Parse("15:04", strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}

// Until returns when the window that t falls in ends (in loc), and false
// when t is outside the window.
func (q QuietHours) Until(t time.Time, loc *time.Location) (time.Time, bool) {
	if !q.Set {
		return time.Time{}, false
	}
	lt := t.In(loc)
	midnight := time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, loc)
	since := lt.Sub(midnight)
	at := func(day time.Time, d time.Duration) time.Time {
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		return time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, loc)
	}
	if q.From < q.To { // same-day window
		if since >= q.From && since < q.To {
			return at(midnight, q.To), true
		}
		return time.Time{}, false
	}
	switch { // wraps midnight
	case since >= q.From:
		return at(midnight.AddDate(0, 0, 1), q.To), true
	case since < q.To:
		return at(midnight, q.To), true
	}
	return time.Time{}, false
}

// isUUID reports whether s is 36 characters of hex digits and dashes in the
// 8-4-4-4-12 layout.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return true
}
