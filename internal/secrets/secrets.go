// Package secrets seals values stored at rest (webhook secrets, channel
// credentials) with AES-256-GCM under the server key FRONTDESK_SECRET_KEY.
//
// A sealed value is text: "fdenc:v1:" followed by base64 (raw URL alphabet)
// of nonce || ciphertext || tag. The prefix lets readers tell sealed values
// from the plaintext that databases written before encryption still hold,
// so a store can be upgraded in place.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Prefix marks a sealed value.
const Prefix = "fdenc:v1:"

// EnvKey is the environment variable that holds the server key.
const EnvKey = "FRONTDESK_SECRET_KEY"

// ErrNoKey is returned when a sealed value must be opened or a value sealed
// and the server has no key.
var ErrNoKey = errors.New(EnvKey + " is not set")

// Box seals and opens values. The zero of *Box (nil) has no key: Seal
// refuses and Open only passes plaintext through.
type Box struct {
	aead cipher.AEAD
	// macKey keys Derive: a key of its own, made from the server key, so
	// derived values never share a key with sealing.
	macKey []byte
}

// ParseKey reads a 32-byte key written as base64 (standard or URL, padded or
// not) or as 64 hex digits. An empty string gives a nil Box and no error.
func ParseKey(s string) (*Box, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var key []byte
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		key = b
	} else {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
				key = b
				break
			}
		}
	}
	if key == nil {
		return nil, fmt.Errorf("%s must be 32 bytes written as base64 or 64 hex digits (e.g. the output of `openssl rand -base64 32`)", EnvKey)
	}
	return New(key)
}

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("frontdesk derive v1"))
	return &Box{aead: aead, macKey: mac.Sum(nil)}, nil
}

// Derive is HMAC-SHA256 of msg under a key made from the server key, kept
// apart per purpose: the same purpose and msg always give the same 32
// bytes, and nobody without the server key can compute them (manage-link
// tokens are derived this way, so the database never holds them). Without
// a key it returns ErrNoKey.
func (b *Box) Derive(purpose string, msg []byte) ([]byte, error) {
	if !b.HasKey() || len(b.macKey) == 0 {
		return nil, ErrNoKey
	}
	mac := hmac.New(sha256.New, b.macKey)
	mac.Write([]byte(purpose))
	mac.Write([]byte{0})
	mac.Write(msg)
	return mac.Sum(nil), nil
}

// HasKey reports whether b can seal.
func (b *Box) HasKey() bool { return b != nil && b.aead != nil }

// Seal encrypts plaintext. The empty string stays empty (nothing to hide,
// and "no secret" must stay recognisable). Without a key it returns ErrNoKey.
func (b *Box) Seal(plaintext string) (string, error) {
	if plaintext == "" {
		return "", nil
	}
	if !b.HasKey() {
		return "", ErrNoKey
	}
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(Prefix))
	return Prefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// Open decrypts a sealed value. A value without the prefix is returned as
// it is (plaintext stored before encryption was configured).
func (b *Box) Open(stored string) (string, error) {
	if !IsSealed(stored) {
		return stored, nil
	}
	if !b.HasKey() {
		return "", ErrNoKey
	}
	raw, err := base64.RawURLEncoding.DecodeString(stored[len(Prefix):])
	ns := b.aead.NonceSize()
	if err != nil || len(raw) < ns+b.aead.Overhead() {
		return "", errors.New("sealed value is malformed")
	}
	pt, err := b.aead.Open(nil, raw[:ns], raw[ns:], []byte(Prefix))
	if err != nil {
		return "", fmt.Errorf("sealed value does not open with %s (was it sealed under another key?)", EnvKey)
	}
	return string(pt), nil
}

// IsSealed reports whether a stored value is sealed.
func IsSealed(stored string) bool { return strings.HasPrefix(stored, Prefix) }

// SealIfKey seals plaintext when b has a key and returns it unchanged
// otherwise: for values (webhook secrets) that the contract lets a server
// without FRONTDESK_SECRET_KEY store, so that existing workspaces keep
// working; serve warns at start when it runs without a key.
func (b *Box) SealIfKey(plaintext string) (string, error) {
	if !b.HasKey() {
		return plaintext, nil
	}
	return b.Seal(plaintext)
}
