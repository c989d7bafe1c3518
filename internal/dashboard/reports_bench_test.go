package dashboard_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/dashboard"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/password"
	"github.com/frontdesk/frontdesk/internal/reports/reportstest"
)

// BenchmarkReportsPage opens the reports page of a busy clinic's year
// (20 professionals, 100,000 appointments, 1,000,000 messages;
// reportstest.Busy) as its owner: the default month, and the whole year.
// Server time: the handler runs in this process, over loopback.
func BenchmarkReportsPage(b *testing.B) {
	for _, e := range []db.Engine{db.SQLite, db.Postgres} {
		b.Run(string(e), func(b *testing.B) {
			store := dbtest.Open(b, e)
			_, ids := reportstest.Clinic(b, store, "busy", []map[string]any{
				{"key": "olga", "name": "Olga", "email": "olga@busy.test", "password": "olga-password"}}, password.Hash)
			start := time.Now()
			reportstest.Busy(b, store, ids, 100_000, 1_000_000)
			b.Logf("%s: fixture in %v", e, time.Since(start).Round(time.Millisecond))
			dash, err := dashboard.New(dashboard.Config{DB: store, Clock: clock.NewFake(reportstest.At(15, 9, 0)), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(dash)
			defer srv.Close()
			jar, _ := cookiejar.New(nil)
			client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			get := func(path string) string {
				res, err := client.Get(srv.URL + path)
				if err != nil {
					b.Fatal(err)
				}
				defer res.Body.Close()
				body, _ := io.ReadAll(res.Body)
				if res.StatusCode != http.StatusOK {
					b.Fatalf("%s: %d %.300s", path, res.StatusCode, body)
				}
				return string(body)
			}
			token := csrfField.FindStringSubmatch(get("/app/login"))
			if token == nil {
				b.Fatal("no sign-in token")
			}
			res, err := client.PostForm(srv.URL+"/app/login", url.Values{"email": {"olga@busy.test"}, "password": {"olga-password"}, "csrf_token": {token[1]}})
			if err != nil || res.StatusCode != http.StatusSeeOther {
				b.Fatalf("sign in: %v %v", err, res)
			}
			res.Body.Close()
			for _, c := range []struct{ name, query string }{
				{"month", ""}, // last month: February 2026
				{"year", "?from=" + reportstest.BusyFrom.Format(time.DateOnly) + "&to=" + reportstest.LastDay},
			} {
				b.Run(c.name, func(b *testing.B) {
					if body := get("/app/reports" + c.query); !strings.Contains(body, `role="img"`) {
						b.Fatal("no chart")
					}
					for b.Loop() {
						get("/app/reports" + c.query)
					}
				})
			}
		})
	}
}
