package password

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// The timing equaliser costs what a stored password's check costs: a valid
// hash at the default cost, which no real password matches by accident.
func TestDummyCostsWhatAPasswordCosts(t *testing.T) {
	cost, err := bcrypt.Cost(dummy)
	if err != nil {
		t.Fatalf("dummy is not a bcrypt hash: %v", err)
	}
	if cost != bcrypt.DefaultCost {
		t.Errorf("dummy's cost is %d, a password's %d", cost, bcrypt.DefaultCost)
	}
	if err := bcrypt.CompareHashAndPassword(dummy, []byte("frontdesk-timing-equaliser")); err != nil {
		t.Errorf("dummy is not the hash it says: %v", err)
	}
}

func TestHashAndMatches(t *testing.T) {
	defer func(c int) { Cost = c }(Cost)
	Cost = bcrypt.MinCost
	for _, tc := range []struct {
		stored, tried string
		want          bool
	}{
		{"correct horse", "correct horse", true},
		{"correct horse", "correct horsE", false},
		{"correct horse", "", false},
		{"ñandú", "ñandú", true},
	} {
		h, err := Hash(tc.stored)
		if err != nil {
			t.Fatal(err)
		}
		if got := Matches(h, tc.tried); got != tc.want {
			t.Errorf("Matches(Hash(%q), %q) = %v, want %v", tc.stored, tc.tried, got, tc.want)
		}
	}
}
