package bookingpage

// Form tokens stand in for a session's CSRF token on pages that have no
// session and may live in a third-party <iframe>, where cookies are not
// kept (docs/booking-page.md, "Forms"). Each form carries a token the
// server signed: what it may be sent to (its scope: one account's booking
// page, or one manage link), when it stops being taken, and a random
// nonce. A POST without a valid token for its scope is refused; a token is
// taken once, so a second click of the same button (or a reload that posts
// again) lands on the first answer instead of booking twice.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/secrets"
)

// formLifetime is how long a form may stay open before it is sent.
const formLifetime = 2 * time.Hour

// keys are the page's two keys: one signs form tokens, one seals the state
// a step carries in its URL.
type keys struct {
	sign []byte
	seal cipher.AEAD
}

// newKeys derives the keys from the server key, or makes random ones for
// this process when there is none.
func newKeys(box *secrets.Box) (keys, error) {
	signKey, sealKey := make([]byte, 32), make([]byte, 32)
	if box.HasKey() {
		s, err := box.Derive("booking-page-forms", nil)
		if err != nil {
			return keys{}, err
		}
		e, err := box.Derive("booking-page-steps", nil)
		if err != nil {
			return keys{}, err
		}
		copy(signKey, s)
		copy(sealKey, e)
	} else {
		if _, err := rand.Read(signKey); err != nil {
			return keys{}, err
		}
		if _, err := rand.Read(sealKey); err != nil {
			return keys{}, err
		}
	}
	block, err := aes.NewCipher(sealKey)
	if err != nil {
		return keys{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return keys{}, err
	}
	return keys{sign: signKey, seal: aead}, nil
}

const (
	nonceLen = 12
	macLen   = 16
	tokenLen = 8 + nonceLen + macLen
)

// issue returns a new token for scope, taken until now + formLifetime.
func (k keys) issue(scope string, now time.Time) string {
	raw := make([]byte, tokenLen)
	binary.BigEndian.PutUint64(raw, uint64(now.Add(formLifetime).Unix()))
	if _, err := rand.Read(raw[8 : 8+nonceLen]); err != nil {
		panic("bookingpage: no randomness: " + err.Error())
	}
	copy(raw[8+nonceLen:], k.mac(scope, raw[:8+nonceLen]))
	return base64.RawURLEncoding.EncodeToString(raw)
}

func (k keys) mac(scope string, body []byte) []byte {
	m := hmac.New(sha256.New, k.sign)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(body)
	return m.Sum(nil)[:macLen]
}

// errBadToken is a form token that is missing, forged, for another scope,
// or expired: the form is shown again with a fresh one.
var errBadToken = errors.New("bookingpage: the form token is not valid")

// check verifies token for scope at now and returns its nonce.
func (k keys) check(token, scope string, now time.Time) (string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != tokenLen {
		return "", errBadToken
	}
	if !hmac.Equal(raw[8+nonceLen:], k.mac(scope, raw[:8+nonceLen])) {
		return "", errBadToken
	}
	if now.Unix() >= int64(binary.BigEndian.Uint64(raw[:8])) {
		return "", errBadToken
	}
	return string(raw[8 : 8+nonceLen]), nil
}

// usedTokens remembers, for formLifetime, the tokens whose action ran and
// where it led, so the same form sent twice is answered with the first
// outcome. A token whose action is still running makes the second request
// wait for it.
type usedTokens struct {
	mu   sync.Mutex
	byID map[string]*outcome
}

type outcome struct {
	done     chan struct{}
	location string // where the first request was sent; "" when it failed
	until    time.Time
}

func newUsedTokens() *usedTokens { return &usedTokens{byID: map[string]*outcome{}} }

// claim takes nonce for an action. When it was taken before, claim waits
// for that action (at most a while) and returns where it led (empty when
// it has not finished), with first false.
func (u *usedTokens) claim(nonce string, now time.Time) (o *outcome, location string, first bool) {
	u.mu.Lock()
	for id, o := range u.byID {
		if now.After(o.until) {
			delete(u.byID, id)
		}
	}
	if o, ok := u.byID[nonce]; ok {
		u.mu.Unlock()
		select {
		case <-o.done:
		case <-time.After(30 * time.Second):
		}
		u.mu.Lock()
		defer u.mu.Unlock()
		return o, o.location, false
	}
	o = &outcome{done: make(chan struct{}), until: now.Add(formLifetime)}
	u.byID[nonce] = o
	u.mu.Unlock()
	return o, "", true
}

// finish records where the action led ("" when it was refused: the token
// may then be sent again, with the form corrected).
func (u *usedTokens) finish(nonce string, o *outcome, location string) {
	u.mu.Lock()
	o.location = location
	if location == "" {
		delete(u.byID, nonce)
	}
	u.mu.Unlock()
	close(o.done)
}
