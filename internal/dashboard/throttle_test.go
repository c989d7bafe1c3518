package dashboard_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

// newUserFrom is a browser whose connections come from a given loopback
// address (all of 127.0.0.0/8 is loopback on Linux), so tests can play
// several client addresses against the real listener.
func (h *harness) newUserFrom(ip string) *user {
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &user{h: h, client: &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialer.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// signInRace has each user (already holding a sign-in form) post its
// credentials at the same moment; it returns how many got each status.
// It runs off the test goroutine, so it reports errors rather than failing.
func signInRace(t *testing.T, users []*user, emails []string, pw string) map[int]int {
	t.Helper()
	var (
		mu      sync.Mutex
		counts  = map[int]int{}
		errs    []error
		wg      sync.WaitGroup
		start   = make(chan struct{})
		srvBase = users[0].h.srv.URL
	)
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			form := url.Values{"email": {emails[i%len(emails)]}, "password": {pw}, "csrf_token": {u.csrf}}
			req, _ := http.NewRequest("POST", srvBase+"/app/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			<-start
			res, err := u.client.Do(req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
				errs = append(errs, fmt.Errorf("429 without Retry-After"))
			}
			counts[res.StatusCode]++
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	return counts
}

// Finding 2: 40 simultaneous wrong passwords for one e-mail were all
// checked. The attempt is counted before the password is checked, in one
// statement, so at most five are checked and the right password is then
// refused until the window passes.
func TestSignInThrottleHoldsUnderParallelAttempts(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		users := make([]*user, 40)
		for i := range users {
			users[i] = h.newUser()
			users[i].get("/app/login").must(t, http.StatusOK)
		}
		got := signInRace(t, users, []string{"ana@acme.test"}, "wrong-password")
		if got[http.StatusUnauthorized] > 5 || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 40 {
			t.Fatalf("40 parallel wrong passwords: %v, want at most 5 checked (401) and the rest 429", got)
		}
		p := h.newUser().signIn("ana@acme.test", "ana-password", "").must(t, http.StatusTooManyRequests).contains(t, "Too many failed sign-ins")
		if ra, err := strconv.Atoi(p.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 900 {
			t.Fatalf("Retry-After = %q, want 1..900 s", p.Header.Get("Retry-After"))
		}
		h.clock.Advance(14 * time.Minute)
		h.newUser().signIn("ana@acme.test", "ana-password", "").must(t, http.StatusTooManyRequests)
		h.clock.Advance(time.Minute)
		h.newUser().signIn("ana@acme.test", "ana-password", "").must(t, http.StatusSeeOther)
	})
}

// Finding 2, second half: one address trying many e-mails meets a limit
// of its own (20 failed sign-ins per 15 minutes); other addresses are
// unaffected, and successful sign-ins (an office behind one NAT) do not
// count towards it.
func TestSignInThrottlePerAddress(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		for i := 0; i < 25; i++ {
			p := h.newUserFrom("127.0.0.1").signIn(fmt.Sprintf("nobody%d@acme.test", i), "wrong-password", "")
			want := http.StatusUnauthorized
			if i >= 20 {
				want = http.StatusTooManyRequests
			}
			p.must(t, want)
			if want == http.StatusTooManyRequests {
				p.contains(t, "from your network")
			}
		}
		h.newUserFrom("127.0.0.1").signIn("ana@acme.test", "ana-password", "").must(t, http.StatusTooManyRequests)
		h.newUserFrom("127.0.0.2").signIn("ana@acme.test", "ana-password", "").must(t, http.StatusSeeOther)

		// Spraying in parallel holds too.
		users := make([]*user, 40)
		emails := make([]string, 40)
		for i := range users {
			users[i] = h.newUserFrom("127.0.0.3")
			users[i].get("/app/login").must(t, http.StatusOK)
			emails[i] = fmt.Sprintf("spray%d@acme.test", i)
		}
		got := signInRace(t, users, emails, "wrong-password")
		if got[http.StatusUnauthorized] > 20 || got[http.StatusUnauthorized]+got[http.StatusTooManyRequests] != 40 {
			t.Fatalf("40 parallel e-mails from one address: %v, want at most 20 checked", got)
		}

		// Successes do not use up the address's allowance.
		for i := 0; i < 25; i++ {
			h.newUserFrom("127.0.0.4").signIn("ana@acme.test", "ana-password", "").must(t, http.StatusSeeOther)
		}

		h.clock.Advance(15 * time.Minute)
		h.newUserFrom("127.0.0.1").signIn("ana@acme.test", "ana-password", "").must(t, http.StatusSeeOther)
	})
}

// Parallel wrong passwords for one e-mail spend exactly that e-mail's
// allowance (5) of the address's 20: the attempts the e-mail limit
// refuses give their address count back before the next attempt from the
// address is counted, so exactly 15 other e-mails can still be tried.
func TestSignInThrottleAddressCountIsExact(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		h := newHarness(t, store)
		const ip = "127.0.0.5"
		users := make([]*user, 30)
		for i := range users {
			users[i] = h.newUserFrom(ip)
			users[i].get("/app/login").must(t, http.StatusOK)
		}
		got := signInRace(t, users, []string{"ana@acme.test"}, "wrong-password")
		if got[http.StatusUnauthorized] != 5 || got[http.StatusTooManyRequests] != 25 {
			t.Fatalf("30 parallel wrong passwords: %v, want exactly 5 checked (401) and 25 refused", got)
		}
		for i := 0; i < 16; i++ {
			p := h.newUserFrom(ip).signIn(fmt.Sprintf("other%d@acme.test", i), "wrong-password", "")
			if i < 15 {
				p.must(t, http.StatusUnauthorized)
				continue
			}
			p.must(t, http.StatusTooManyRequests).contains(t, "from your network")
		}
	})
}
