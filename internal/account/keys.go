package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// KeyPrefix starts every API key.
const KeyPrefix = "pk_"

// MinKeyLength is the shortest key a workspace file may set explicitly.
const MinKeyLength = 12

// ErrInvalidKey is an unknown, malformed, expired or revoked key.
var ErrInvalidKey = errors.New("invalid or expired API key")

// Key is an API key as listed (never its secret).
type Key struct {
	ID         int64      `json:"-"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	Revoked    bool       `json:"revoked"`
	LastUsedAt *time.Time `json:"last_used_at"`
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// GenerateKey returns "pk_" followed by 32 random bytes in base62.
func GenerateKey() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	n := new(big.Int).SetBytes(b[:])
	var sb strings.Builder
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := 0; i < 43; i++ { // 62^43 > 2^256
		n.DivMod(n, base, mod)
		sb.WriteByte(base62[mod.Int64()])
	}
	return KeyPrefix + sb.String()
}

// HashKey is how keys are stored: SHA-256 is enough for 256-bit random
// secrets, and lets a key be found by its hash in one indexed lookup.
func HashKey(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// keyPrefix is what lists show of a key: "pk_" and min(5, (len-3)/4) more
// characters, so never more than 8, and a short explicit key (12
// characters is allowed: README, "Keys and tokens") gives away 2 of its 9 characters
// at most instead of 7.
func keyPrefix(plaintext string) string {
	n := len(KeyPrefix) + min(5, (len(plaintext)-len(KeyPrefix))/4)
	if n > len(plaintext) || n < 0 {
		n = min(len(plaintext), len(KeyPrefix))
	}
	return plaintext[:n]
}

// ValidKeyValue reports whether an explicit key value is acceptable.
func ValidKeyValue(v string) bool {
	return strings.HasPrefix(v, KeyPrefix) && len(v) >= MinKeyLength && !strings.ContainsAny(v, " \t\r\n")
}

// MaxKeyNameLen is the longest key name, in characters.
const MaxKeyNameLen = 100

// KeyName is the key-name rule every door follows (dashboard, CLI,
// workspace file): the name is trimmed and has at most MaxKeyNameLen
// characters. An empty name is the door's to default (each door names its
// keys its own way).
func KeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxKeyNameLen {
		return "", errs.New(errs.ValidationError, "A key name may have at most %d characters.", MaxKeyNameLen)
	}
	return name, nil
}

// liveNameTaken is the refusal of a second live key with one name: keys
// are revoked by name, so live names stay unique.
func liveNameTaken(name string) error {
	return errs.New(errs.ValidationError, "A live key named %q already exists; choose another name.", name)
}

// NewKey describes a key to store.
type NewKey struct {
	FileKey   string // the workspace file's key, "" for keys made by the CLI
	Name      string
	Value     string // plaintext; generated when empty
	ExpiresAt time.Time
	Revoked   bool
}

// InsertKey stores a key for acct and returns its plaintext. The name
// follows KeyName (empty: the file key) and no other live key of acct may
// have it: the check here gives the message, the partial unique index
// api_keys_live_name (migration 00023) settles two racing creates.
func InsertKey(ctx context.Context, q db.Querier, acct Account, k NewKey, now time.Time) (string, error) {
	if k.Value == "" {
		k.Value = GenerateKey()
	}
	if !ValidKeyValue(k.Value) {
		return "", errs.New(errs.ValidationError, "an API key must start with %q and have at least %d characters", KeyPrefix, MinKeyLength)
	}
	name, err := KeyName(k.Name)
	if err != nil {
		return "", err
	}
	if k.Name = name; k.Name == "" {
		k.Name = k.FileKey
	}
	if !k.Revoked {
		var n int
		if err := q.QueryRow(ctx, `SELECT COUNT(*) FROM api_keys WHERE account_id = ? AND name = ? AND revoked_at IS NULL`,
			acct.ID, k.Name).Scan(&n); err != nil {
			return "", fmt.Errorf("insert key: %w", err)
		}
		if n > 0 {
			return "", liveNameTaken(k.Name)
		}
	}
	var revoked any
	if k.Revoked {
		revoked = db.Micros(now)
	}
	_, err = q.Exec(ctx, `INSERT INTO api_keys (account_id, file_key, name, prefix, hash, created_at, expires_at, revoked_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		acct.ID, db.Null(k.FileKey), k.Name, keyPrefix(k.Value), HashKey(k.Value), db.Micros(now), db.NullMicros(k.ExpiresAt), revoked)
	if db.IsUniqueViolation(err) {
		// Both engines name the index (PostgreSQL) or its columns (SQLite):
		// the name's index, or the hash's.
		if strings.Contains(err.Error(), "name") {
			return "", liveNameTaken(k.Name)
		}
		return "", errs.New(errs.ValidationError, "that API key value is already in use")
	}
	if err != nil {
		return "", fmt.Errorf("insert key: %w", err)
	}
	return k.Value, nil
}

// ListKeys returns acct's keys, oldest first.
func ListKeys(ctx context.Context, q db.Querier, acct Account) ([]Key, error) {
	rows, err := q.Query(ctx, `SELECT id, name, prefix, created_at, expires_at, revoked_at, last_used_at
		FROM api_keys WHERE account_id = ? ORDER BY id`, acct.ID)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []Key
	for rows.Next() {
		var (
			k                          Key
			created                    int64
			expires, revoked, lastUsed sql.NullInt64
		)
		if err := rows.Scan(&k.ID, &k.Name, &k.Prefix, &created, &expires, &revoked, &lastUsed); err != nil {
			return nil, err
		}
		k.CreatedAt = db.Time(created)
		k.ExpiresAt = optTime(expires)
		k.Revoked = revoked.Valid
		k.LastUsedAt = optTime(lastUsed)
		out = append(out, k)
	}
	return out, rows.Err()
}

func optTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := db.Time(v.Int64)
	return &t
}

// RevokeKey revokes every live key of acct with that name; it reports how many.
func RevokeKey(ctx context.Context, q db.Querier, acct Account, name string, now time.Time) (int64, error) {
	res, err := q.Exec(ctx, `UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND name = ? AND revoked_at IS NULL`,
		db.Micros(now), acct.ID, name)
	if err != nil {
		return 0, fmt.Errorf("revoke key: %w", err)
	}
	n, _ := res.RowsAffected()
	if n == 0 {
		return 0, errs.New(errs.NotFound, "no active key named %q", name)
	}
	return n, nil
}

// Authenticator resolves bearer keys to accounts. It caches a resolved key
// for at most CacheTTL, so a revocation takes effect within that time on
// every instance, and it records last_used_at at most once per minute per key
// instead of writing on every request.
type Authenticator struct {
	DB       *db.DB
	Clock    clock.Clock
	CacheTTL time.Duration

	mu    sync.Mutex
	cache map[string]cachedKey
}

type cachedKey struct {
	acct      Account
	keyID     int64
	hash      string
	expiresAt time.Time
	lastUsed  time.Time
	loadedAt  time.Time
}

// Authenticate returns the account of a plaintext key or ErrInvalidKey.
func (a *Authenticator) Authenticate(ctx context.Context, plaintext string) (Account, error) {
	acct, _, err := a.AuthenticateKey(ctx, plaintext)
	return acct, err
}

// AuthenticateKey is Authenticate that also returns the key's id, for what
// is counted per key rather than per account (the rate limit).
func (a *Authenticator) AuthenticateKey(ctx context.Context, plaintext string) (Account, int64, error) {
	if !strings.HasPrefix(plaintext, KeyPrefix) || len(plaintext) > 256 {
		return Account{}, 0, ErrInvalidKey
	}
	now := a.Clock.Now()
	hash := HashKey(plaintext)
	ttl := a.CacheTTL
	if ttl == 0 {
		ttl = time.Second
	}
	a.mu.Lock()
	c, ok := a.cache[hash]
	a.mu.Unlock()
	if !ok || now.Sub(c.loadedAt) >= ttl || now.Before(c.loadedAt) {
		var err error
		c, err = a.load(ctx, hash, now)
		if err != nil {
			return Account{}, 0, err
		}
	}
	// The lookup is by hash; compare again in constant time so that a
	// cache or index quirk can never accept a different key.
	if subtle.ConstantTimeCompare([]byte(c.hash), []byte(hash)) != 1 {
		return Account{}, 0, ErrInvalidKey
	}
	if !c.expiresAt.IsZero() && !now.Before(c.expiresAt) {
		return Account{}, 0, ErrInvalidKey
	}
	if now.Sub(c.lastUsed) >= time.Minute {
		a.touch(c, now)
	}
	return c.acct, c.keyID, nil
}

func (a *Authenticator) load(ctx context.Context, hash string, now time.Time) (cachedKey, error) {
	var (
		c        cachedKey
		expires  sql.NullInt64
		revoked  sql.NullInt64
		lastUsed sql.NullInt64
	)
	err := a.DB.QueryRow(ctx, `SELECT k.id, k.hash, k.expires_at, k.revoked_at, k.last_used_at,
			a.id, a.slug, a.name, a.timezone, a.default_region,
			COALESCE(a.rate_per_second, 100), COALESCE(a.rate_burst, 200)
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`, hash).
		Scan(&c.keyID, &c.hash, &expires, &revoked, &lastUsed,
			&c.acct.ID, &c.acct.Slug, &c.acct.Name, &c.acct.Timezone, &c.acct.DefaultRegion,
			&c.acct.Limits.RequestsPerSecond, &c.acct.Limits.Burst)
	if db.IsNoRows(err) {
		return c, ErrInvalidKey
	}
	if err != nil {
		return c, fmt.Errorf("authenticate: %w", err)
	}
	if revoked.Valid {
		a.forget(hash)
		return c, ErrInvalidKey
	}
	c.expiresAt = db.NullTime(expires)
	c.lastUsed = db.NullTime(lastUsed)
	c.loadedAt = now
	a.mu.Lock()
	if a.cache == nil {
		a.cache = map[string]cachedKey{}
	}
	if len(a.cache) > 10000 {
		clear(a.cache)
	}
	a.cache[hash] = c
	a.mu.Unlock()
	return c, nil
}

func (a *Authenticator) forget(hash string) {
	a.mu.Lock()
	delete(a.cache, hash)
	a.mu.Unlock()
}

// touch records the use in the background: the request never waits for it.
func (a *Authenticator) touch(c cachedKey, now time.Time) {
	a.mu.Lock()
	if cur, ok := a.cache[c.hash]; ok {
		cur.lastUsed = now
		a.cache[c.hash] = cur
	}
	a.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.DB.Exec(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, db.Micros(now), c.keyID)
	}()
}
