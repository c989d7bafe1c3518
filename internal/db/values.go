package db

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
)

// JSONText encodes v for a TEXT JSON column. An unencodable value (a NaN
// from a YAML file, a channel) is an error, never an empty column.
func JSONText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode JSON column: %w", err)
	}
	return string(b), nil
}

// NewUUID is a random (version 4) UUID for a new row's public id: an input
// node's, a channel's callback URLs.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
