package account_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// The throttle's documented limits (README.md, Security).
var signInLimits = account.SignInLimits{PerEmail: 5, PerAddress: 20, Window: 15 * time.Minute}

// N parallel wrong attempts on one e-mail from one address leave exactly
// PerAddress - PerEmail other e-mails to try from that address, whatever
// the interleaving: an attempt the e-mail limit refuses gives its address
// count back before the next attempt from the address is counted. Run it
// with -race.
func TestAdmitSignInCountsExactlyUnderConcurrency(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		const addr, n = "a|192.0.2.1", 40
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			admitted int
			errs     []error
			start    = make(chan struct{})
		)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				v, err := account.AdmitSignIn(ctx, store, addr, "e|ana@acme.test|192.0.2.1", signInLimits, now)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				} else if v.Wait == 0 {
					admitted++
				} else if v.PerAddress {
					errs = append(errs, fmt.Errorf("refused by the address limit"))
				}
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			t.Error(err)
		}
		if admitted != signInLimits.PerEmail {
			t.Fatalf("%d parallel attempts on one e-mail: %d admitted, want %d", n, admitted, signInLimits.PerEmail)
		}
		for i := 0; i <= signInLimits.PerAddress-signInLimits.PerEmail; i++ {
			v, err := account.AdmitSignIn(ctx, store, addr, fmt.Sprintf("e|other%d@acme.test|192.0.2.1", i), signInLimits, now)
			if err != nil {
				t.Fatal(err)
			}
			if want := i == signInLimits.PerAddress-signInLimits.PerEmail; (v.Wait > 0) != want || v.PerAddress != want {
				t.Fatalf("other e-mail %d: %+v, want refused by the address: %v", i, v, want)
			}
		}
		// Another address is untouched.
		if v, err := account.AdmitSignIn(ctx, store, "a|192.0.2.2", "e|ana@acme.test|192.0.2.2", signInLimits, now); err != nil || v.Wait != 0 {
			t.Fatalf("another address: %+v %v", v, err)
		}
	})
}
