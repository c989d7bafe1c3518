package phone_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/frontdesk/frontdesk/internal/phone"
)

// Seed corpora live in testdata/fuzz/<FuzzName>/ so that crashers found
// later can be dropped next to them and replayed by plain `go test`.

func FuzzParseIngest(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, areaCode string) {
		n, err := phone.ParseIngest(raw, areaCode)
		if err != nil {
			checkFailure(t, n, err)
			return
		}
		checkNumber(t, n)
		// A successful area code is a valid one, so it must keep accepting
		// the canonical form (rule 1 ignores it but still validates it).
		if again, err := phone.ParseIngest(n.E164(), areaCode); err != nil || again != n {
			t.Fatalf("ParseIngest(%q, %q) = %+v; E.164 with same area code gave %+v, %v", raw, areaCode, n, again, err)
		}
	})
}

func FuzzParseWithRegion(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw, region string) {
		n, err := phone.ParseWithRegion(raw, region)
		if err != nil {
			checkFailure(t, n, err)
			return
		}
		checkNumber(t, n)
		if strings.TrimSpace(region) != "" && !phone.ValidRegion(region) {
			t.Fatalf("ParseWithRegion(%q, %q) succeeded with a region ValidRegion rejects", raw, region)
		}
		if again, err := phone.ParseWithRegion(n.E164(), region); err != nil || again != n {
			t.Fatalf("ParseWithRegion(%q, %q) = %+v; E.164 with same region gave %+v, %v", raw, region, n, again, err)
		}
	})
}

func checkFailure(t *testing.T, n phone.Number, err error) {
	t.Helper()
	if !errors.Is(err, phone.ErrInvalid) {
		t.Fatalf("error %q does not wrap ErrInvalid", err)
	}
	if err.Error() == "" {
		t.Fatal("empty error message")
	}
	if !n.IsZero() {
		t.Fatalf("non-zero Number %+v returned with error %v", n, err)
	}
}

// checkNumber asserts what every stored phone must satisfy. The round trip
// goes through the "+" form because a POSSIBLE-but-not-VALID number is only
// guaranteed to be accepted there; both entry points must agree on it, or
// ingest and booking would file the same line under different keys.
func checkNumber(t *testing.T, n phone.Number) {
	t.Helper()
	if n.CountryCode <= 0 || n.CountryCode > 999 {
		t.Fatalf("bad country code in %+v", n)
	}
	if n.National == "" || len(n.National) > 17 || phone.Digits(n.National) != n.National {
		t.Fatalf("bad national digits in %+v", n)
	}
	e := n.E164()
	if want := "+" + strconv.Itoa(n.CountryCode) + n.National; e != want {
		t.Fatalf("E164() = %q, want %q", e, want)
	}
	if got, err := phone.ParseIngest(e, ""); err != nil || got != n {
		t.Fatalf("%+v: ParseIngest(%q, \"\") = %+v, %v", n, e, got, err)
	}
	if got, err := phone.ParseWithRegion(e, ""); err != nil || got != n {
		t.Fatalf("%+v: ParseWithRegion(%q, \"\") = %+v, %v", n, e, got, err)
	}
	if got, err := phone.ParseIngest("00"+e[1:], ""); err != nil || got != n {
		t.Fatalf("%+v: ParseIngest(%q, \"\") = %+v, %v", n, "00"+e[1:], got, err)
	}
}
