// Package password hashes and checks the dashboard users' passwords. It is
// its own small package so that every place that applies a workspace file
// (the command line, the admin route, serve --demo) can hash the file's
// passwords without depending on the dashboard.
package password

import (
	"errors"

	"golang.org/x/crypto/bcrypt"
)

// MinLength is the shortest password set-password accepts.
const MinLength = 8

// Cost is bcrypt's work factor (2^Cost rounds): about 50-80 ms per check on
// a current core, slow enough for offline guessing, fast enough for sign-in.
var Cost = bcrypt.DefaultCost

// ErrTooLong is a password bcrypt cannot hash (over 72 bytes).
var ErrTooLong = errors.New("a password may have at most 72 bytes")

// Hash returns the bcrypt hash of a plaintext password.
func Hash(plaintext string) (string, error) {
	if len(plaintext) > 72 {
		return "", ErrTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(plaintext), Cost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// Matches reports whether plaintext is the password of hash, in time that
// does not depend on where they differ.
func Matches(hash, plaintext string) bool {
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(plaintext)) == nil
}

// dummy is compared against when a sign-in names no known user, so that an
// unknown e-mail costs the same time as a wrong password. It is a hash of
// "frontdesk-timing-equaliser" at bcrypt.DefaultCost, written out: made at
// start-up it cost every frontdesk command, the CLI's included, about 60 ms
// before it did anything.
var dummy = []byte("$2a$10$zaAfEggw5453ysGLWCDWp.5sgpEQIIS.trQWolImofeugydyfhPce")

// Waste spends one comparison's time; see dummy.
func Waste(plaintext string) { bcrypt.CompareHashAndPassword(dummy, []byte(plaintext)) }
