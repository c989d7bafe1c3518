package feeds_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/feeds"
	"github.com/frontdesk/frontdesk/internal/ics"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

var now = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// clinic provisions an account with two professionals and returns it with
// their ids.
func clinic(t *testing.T, store *db.DB, slug string) (account.Account, map[string]int64) {
	t.Helper()
	doc := `account: {slug: ` + slug + `, name: Clinic ` + slug + `, timezone: Europe/Madrid}
professionals: [{key: ana, name: Ana}, {key: ben, name: Ben, active: false}]`
	res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(context.Background(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := account.BySlug(context.Background(), store, slug)
	if err != nil {
		t.Fatal(err)
	}
	return acct, res.IDs.Professionals
}

func isNotFound(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Code == errs.NotFound
}

// TestLinks: one live link per professional, replaced by a new one,
// revoked at once, never across accounts; unknown, revoked and malformed
// tokens are all ErrUnknown.
func TestLinks(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		acme, pros := clinic(t, store, "acme")
		other, otherPros := clinic(t, store, "other")
		makeLink := func(acct account.Account, id int64) (feeds.Made, error) {
			var m feeds.Made
			err := store.Transact(ctx, func(tx *db.Tx) (err error) {
				m, err = feeds.Make(ctx, tx, acct, id, now)
				return err
			})
			return m, err
		}
		opens := func(token string) error {
			_, err := feeds.Calendar(ctx, store, token, now)
			return err
		}

		first, err := makeLink(acme, pros["ana"])
		if err != nil || first.Replaced || first.ProfessionalName != "Ana" || len(first.Token) != 43 {
			t.Fatalf("make: %+v %v", first, err)
		}
		second, err := makeLink(acme, pros["ana"])
		if err != nil || !second.Replaced || second.Token == first.Token {
			t.Fatalf("make again: %+v %v", second, err)
		}
		theirs, err := makeLink(other, otherPros["ana"])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := makeLink(acme, otherPros["ben"]); !isNotFound(err) {
			t.Errorf("made a link for another account's professional: %v", err)
		}
		list, err := feeds.List(ctx, store, acme)
		if err != nil || len(list) != 2 || list[0].CreatedAt == nil || !list[0].CreatedAt.Equal(now) || list[1].CreatedAt != nil || list[1].Active {
			t.Fatalf("list: %+v %v", list, err)
		}
		if _, _, err := feeds.Revoke(ctx, store, acme, otherPros["ana"]); !isNotFound(err) {
			t.Errorf("revoked another account's link: %v", err)
		}
		for _, test := range []struct {
			name  string
			token string
			opens bool
		}{
			{"live", second.Token, true},
			{"replaced", first.Token, false},
			{"another account's", theirs.Token, true},
			{"malformed", "not a token", false},
			{"well formed, unknown", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", false},
			{"with a suffix", second.Token + ".ics", false},
		} {
			if err := opens(test.token); (err == nil) != test.opens || (err != nil && !errors.Is(err, feeds.ErrUnknown)) {
				t.Errorf("%s: %v", test.name, err)
			}
		}
		if name, revoked, err := feeds.Revoke(ctx, store, acme, pros["ana"]); err != nil || !revoked || name != "Ana" {
			t.Fatalf("revoke: %q %v %v", name, revoked, err)
		}
		if _, revoked, err := feeds.Revoke(ctx, store, acme, pros["ana"]); err != nil || revoked {
			t.Errorf("revoke twice: %v %v", revoked, err)
		}
		if err := opens(second.Token); !errors.Is(err, feeds.ErrUnknown) {
			t.Errorf("a revoked link opens: %v", err)
		}
		if err := opens(theirs.Token); err != nil {
			t.Errorf("another account's link stopped: %v", err)
		}
		cal, err := feeds.Calendar(ctx, store, theirs.Token, now)
		if err != nil || cal.Name != "Ana · Clinic other" || len(cal.Events) != 0 || cal.Refresh != feeds.Refresh {
			t.Errorf("calendar: %+v %v", cal, err)
		}
	})
}

func TestWindow(t *testing.T) {
	from, to := feeds.Window(now)
	if !from.Equal(time.Date(2026, 10, 24, 9, 0, 0, 0, time.UTC)) || !to.Equal(time.Date(2027, 5, 22, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("window %v to %v", from, to)
	}
	if got := feeds.Path("abc"); got != "/ics/abc.ics" {
		t.Errorf("path %q", got)
	}
	if ics.AppointmentUID("acme", 7) == ics.AppointmentUID("other", 7) || ics.AppointmentUID("acme", 7) != ics.AppointmentUID("acme", 7) {
		t.Error("UIDs are not stable and distinct across accounts")
	}
}
