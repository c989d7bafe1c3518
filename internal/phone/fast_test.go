package phone

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/nyaruka/phonenumbers"
	"google.golang.org/protobuf/proto"
)

// The fast reading of "+"+digits must be exactly the parser's, wherever it
// answers: every calling code, national numbers of every length the parser
// takes, random digits and the numbers integrators send.
func TestFastInternationalMatchesTheParser(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for _, s := range []string{"34600111222", "34912345678", "447700900123", "12025550123", "33612345678", "4915123456789",
		"393123456789", "390612345678", "79161234567", "77012345678", "861381234567", "5511987654321", "8001234567", "80012345678",
		"3460011122", "346001112223", "34", "340", "3400", "35312345", "3861234567", "3860000001"} {
		inputs = append(inputs, s)
	}
	for cc := 1; cc < 1000; cc++ {
		if phonenumbers.GetRegionCodeForCountryCode(cc) == "ZZ" {
			continue
		}
		for n := 1; n <= 18; n++ {
			for range 4 {
				national := make([]byte, n)
				for i := range national {
					national[i] = byte('0' + rng.IntN(10))
				}
				inputs = append(inputs, strconv.Itoa(cc)+string(national))
			}
		}
	}
	fast := 0
	for _, digits := range inputs {
		got, ok := fastInternational(digits)
		if !ok {
			continue
		}
		fast++
		want, err := phonenumbers.Parse("+"+digits, "")
		if err != nil {
			t.Fatalf("+%s: fast path read %v, the parser failed: %v", digits, got, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("+%s: fast path %v, parser %v", digits, got, want)
		}
	}
	// Spain, the demo's country, must be on the fast path, or the test
	// proves nothing about the numbers that matter most.
	if _, ok := fastInternational("34600111222"); !ok || fast < 1000 {
		t.Fatalf("fast path taken for %d of %d inputs (Spain: %v)", fast, len(inputs), ok)
	}
}

func FuzzFastInternational(f *testing.F) {
	for _, s := range []string{"34600111222", "447700900123", "12025550123", "0034", "3", "999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, digits string) {
		got, ok := fastInternational(digits)
		if !ok {
			return
		}
		want, err := phonenumbers.Parse("+"+digits, "")
		if err != nil || !proto.Equal(got, want) {
			t.Fatalf("+%s: fast path %v, parser %v (%v)", digits, got, want, err)
		}
	})
}
