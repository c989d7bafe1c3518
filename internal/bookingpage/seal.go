package bookingpage

// A step of the booking carries what the patient gave so far in its URL,
// sealed (AES-GCM under a key derived from the server key), so no cookie
// is needed and the phone and names never show in an address, a log or a
// browser's history: what the code step needs, and what the confirmation
// shows. A sealed step is bound to its account's page and expires.

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"
)

// sealed is the envelope: the step and when it stops being taken.
type sealed[T any] struct {
	Until int64 `json:"u"`
	Step  T     `json:"s"`
}

// errBadStep is a sealed step that is forged, for another page, expired or
// unreadable.
var errBadStep = errors.New("bookingpage: the step is not valid")

// sealStep seals step for scope until now + ttl.
func sealStep[T any](k keys, scope string, step T, now time.Time, ttl time.Duration) string {
	plain, err := json.Marshal(sealed[T]{Until: now.Add(ttl).Unix(), Step: step})
	if err != nil {
		panic("bookingpage: a step does not encode: " + err.Error())
	}
	nonce := make([]byte, k.seal.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		panic("bookingpage: no randomness: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(k.seal.Seal(nonce, nonce, plain, []byte(scope)))
}

// openStep opens a sealed step of scope at now.
func openStep[T any](k keys, scope, text string, now time.Time) (T, error) {
	var out sealed[T]
	raw, err := base64.RawURLEncoding.DecodeString(text)
	n := k.seal.NonceSize()
	if err != nil || len(raw) < n+k.seal.Overhead() {
		return out.Step, errBadStep
	}
	plain, err := k.seal.Open(nil, raw[:n], raw[n:], []byte(scope))
	if err != nil || json.Unmarshal(plain, &out) != nil || now.Unix() >= out.Until {
		return out.Step, errBadStep
	}
	return out.Step, nil
}
