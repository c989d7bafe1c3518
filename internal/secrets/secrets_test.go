package secrets_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/secrets"
)

func TestParseKey(t *testing.T) {
	raw := []byte("0123456789abcdef0123456789abcdef")
	for _, test := range []struct {
		name, in string
		wantNil  bool
		wantErr  bool
	}{
		{"empty", "", true, false},
		{"hex", hex.EncodeToString(raw), false, false},
		{"base64", base64.StdEncoding.EncodeToString(raw), false, false},
		{"base64 raw url", base64.RawURLEncoding.EncodeToString(raw), false, false},
		{"short", "abc", false, true},
		{"31 bytes", base64.StdEncoding.EncodeToString(raw[:31]), false, true},
	} {
		t.Run(test.name, func(t *testing.T) {
			b, err := secrets.ParseKey(test.in)
			if (err != nil) != test.wantErr {
				t.Fatalf("err = %v, want error %v", err, test.wantErr)
			}
			if test.wantErr {
				if strings.Contains(err.Error(), test.in) && test.in != "" {
					t.Errorf("error echoes the key: %v", err)
				}
				return
			}
			if (b == nil) != test.wantNil {
				t.Fatalf("box nil = %v, want %v", b == nil, test.wantNil)
			}
		})
	}
}

func TestSealOpen(t *testing.T) {
	box, err := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := secrets.New([]byte("fedcba9876543210fedcba9876543210"))
	sealed, err := box.Seal("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if !secrets.IsSealed(sealed) || strings.Contains(sealed, "s3cret") {
		t.Fatalf("sealed = %q", sealed)
	}
	again, _ := box.Seal("s3cret")
	if again == sealed {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	if got, err := box.Open(sealed); err != nil || got != "s3cret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := other.Open(sealed); err == nil {
		t.Error("another key opened the value")
	}
	var none *secrets.Box
	if _, err := none.Open(sealed); !errors.Is(err, secrets.ErrNoKey) {
		t.Errorf("keyless Open = %v, want ErrNoKey", err)
	}
	if _, err := none.Seal("x"); !errors.Is(err, secrets.ErrNoKey) {
		t.Errorf("keyless Seal = %v, want ErrNoKey", err)
	}
	if got, _ := none.Open("plain"); got != "plain" {
		t.Errorf("plaintext passthrough = %q", got)
	}
	if got, _ := none.SealIfKey("plain"); got != "plain" {
		t.Errorf("SealIfKey without key = %q", got)
	}
	if got, _ := box.Seal(""); got != "" {
		t.Errorf("empty sealed to %q", got)
	}
	// Flip one bit of the ciphertext (not of the text: the last base64
	// character may carry unused bits, and changing it need not change
	// the bytes).
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(sealed, secrets.Prefix))
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x01
	if _, err := box.Open(secrets.Prefix + base64.RawURLEncoding.EncodeToString(raw)); err == nil {
		t.Error("tampered value opened")
	}
	if _, err := box.Open(secrets.Prefix + "!!"); err == nil {
		t.Error("malformed value opened")
	}
}

// TestDerive: the same purpose and message give the same bytes under one
// key, and different bytes under another key or purpose; no key, no value.
func TestDerive(t *testing.T) {
	one, _ := secrets.New([]byte("0123456789abcdef0123456789abcdef"))
	two, _ := secrets.New([]byte("fedcba9876543210fedcba9876543210"))
	a, err := one.Derive("manage-link", []byte("1/2"))
	if err != nil || len(a) != 32 {
		t.Fatalf("%x %v", a, err)
	}
	for _, tc := range []struct {
		name    string
		box     *secrets.Box
		purpose string
		same    bool
	}{
		{"again", one, "manage-link", true},
		{"other key", two, "manage-link", false},
		{"other purpose", one, "feed", false},
	} {
		b, err := tc.box.Derive(tc.purpose, []byte("1/2"))
		if err != nil || (string(a) == string(b)) != tc.same {
			t.Errorf("%s: %x vs %x %v", tc.name, a, b, err)
		}
	}
	var none *secrets.Box
	if _, err := none.Derive("manage-link", nil); err != secrets.ErrNoKey {
		t.Errorf("no key: %v", err)
	}
}
