package privacy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"github.com/frontdesk/frontdesk/internal/privacy"
	pt "github.com/frontdesk/frontdesk/internal/privacy/privacytest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// fixture is acme (from acme.yaml) with the two fixture clients, and the
// other account of the API tests.
type fixture struct {
	store       *db.DB
	acme, other account.Account
	erasable    pt.Records
	kept        pt.Records
}

func newFixture(t *testing.T, store *db.DB) fixture {
	t.Helper()
	ctx := context.Background()
	f := fixture{store: store}
	for _, file := range []string{"../workspace/testdata/acme.yaml", "../httpapi/testdata/other.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&workspace.Applier{DB: store, Now: func() time.Time { return pt.Now }, Targets: outbound.Policy{AllowPrivate: true}}).Apply(ctx, data); err != nil {
			t.Fatalf("apply %s: %v", file, err)
		}
	}
	var err error
	if f.acme, err = account.BySlug(ctx, store, "acme"); err != nil {
		t.Fatal(err)
	}
	if f.other, err = account.BySlug(ctx, store, "other"); err != nil {
		t.Fatal(err)
	}
	pt.SeedAccount(t, store, f.acme)
	f.erasable = pt.Seed(t, store, f.acme, pt.Erasable, 10)
	f.kept = pt.Seed(t, store, f.acme, pt.Kept, 11)
	return f
}

func export(t *testing.T, f fixture, acct account.Account, id int64) (string, error) {
	t.Helper()
	var b bytes.Buffer
	err := privacy.Export(context.Background(), f.store, acct, id, &b, pt.Now)
	return b.String(), err
}

// TestExportHoldsEverythingAndNothingElse: every kind of record of the
// client is in the document; none of the other client's values and no
// secret is.
func TestExportHoldsEverythingAndNothingElse(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		f := newFixture(t, store)
		out, err := export(t, f, f.acme, f.erasable.ClientID)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("not one JSON document: %v\n%s", err, out)
		}
		client := doc["client"].(map[string]any)
		if doc["exported_at"] != "2026-11-23T09:00:00Z" || client["id"].(float64) != float64(f.erasable.ClientID) ||
			client["first_name"] != pt.Erasable.First || client["phone"] != pt.Erasable.Phone || client["email"] != pt.Erasable.Email ||
			client["national_id"] != pt.Erasable.NationalID || client["data"].(map[string]any)["marker"] != pt.Erasable.Marker || client["erased_at"] != nil {
			t.Fatalf("client section: %v (exported_at %v)", client, doc["exported_at"])
		}
		list := func(name string) []any {
			t.Helper()
			l, ok := doc[name].([]any)
			if !ok {
				t.Fatalf("section %s missing: %v", name, doc[name])
			}
			return l
		}
		for _, c := range []struct {
			section string
			min     int
			holds   string // a value one of its items holds
		}{
			{"tags", 1, pt.Erasable.Tag},
			{"appointments", 2, "notes " + pt.Erasable.Marker},
			{"waitlist_entries", 1, "entry " + pt.Erasable.Marker},
			{"pipeline_cards", 1, `"moved"`},
			{"conversations", 1, "summary " + pt.Erasable.Marker},
			{"outbox", 2, "Hola " + pt.Erasable.First},
			{"outbox", 2, `"kind":"verification_code"`},
			{"consents", 1, `"opted_out":true`},
			{"audit", 1, "insurer: " + pt.Erasable.Marker},
		} {
			items := list(c.section)
			b, _ := json.Marshal(items)
			if len(items) < c.min || !strings.Contains(string(b), c.holds) {
				t.Errorf("%s: %d items (want at least %d) holding %q: %s", c.section, len(items), c.min, c.holds, b)
			}
		}
		card := list("pipeline_cards")[0].(map[string]any)
		if h := card["history"].([]any); len(h) != 2 {
			t.Errorf("card history: %v", h)
		}
		conv := list("conversations")[0].(map[string]any)
		senders := map[string]bool{}
		for _, m := range conv["messages"].([]any) {
			senders[m.(map[string]any)["sender"].(string)] = true
		}
		if !senders["client"] || !senders["user"] || !senders["ai_agent"] {
			t.Errorf("messages in and out: %v", conv["messages"])
		}
		for _, n := range append(pt.Kept.Needles(), pt.Kept.Tag) {
			if strings.Contains(strings.ToLower(out), n) {
				t.Errorf("the export holds the other client's %q", n)
			}
		}
		for _, s := range pt.Secrets {
			if strings.Contains(out, s) {
				t.Errorf("the export holds the secret %q", s)
			}
		}
		// The control: the other client's export holds its own values.
		kept, err := export(t, f, f.acme, f.kept.ClientID)
		if err != nil || !strings.Contains(kept, pt.Kept.Marker) || strings.Contains(kept, pt.Erasable.Marker) {
			t.Fatalf("the other client's export: %v", err)
		}
	})
}

// TestErase: each effect, then a scan of every text column of every table
// finds none of the client's values (and still finds the other client's).
func TestErase(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		f := newFixture(t, store)
		id := f.erasable.ClientID
		res, err := privacy.Erase(ctx, store, f.acme, id, audit.Actor{UserID: 0, UserName: "cli"}, pt.Now)
		if err != nil {
			t.Fatal(err)
		}
		if res.Cancelled != 1 || res.EntriesRemoved != 1 {
			t.Fatalf("erase: %+v", res)
		}
		one := func(q string, args ...any) string {
			t.Helper()
			var s string
			if err := store.QueryRow(ctx, q, args...).Scan(&s); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return s
		}
		count := func(q string, args ...any) int {
			t.Helper()
			var n int
			if err := store.QueryRow(ctx, q, args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return n
		}
		for _, c := range []struct {
			name string
			got  string
			want string
		}{
			{"names", one(`SELECT first_name || '|' || last_name FROM clients WHERE id = ?`, id), "|"},
			{"phone, e-mail, company", one(`SELECT COALESCE(phone_national, '') || COALESCE(email, '') || COALESCE(company, '') FROM clients WHERE id = ?`, id), ""},
			{"data", one(`SELECT data FROM clients WHERE id = ?`, id), "{}"},
			{"patient fields and search", one(`SELECT national_id || insurer || insurance_policy || search_text || name_search FROM clients WHERE id = ?`, id), ""},
			{"erased", one(`SELECT CASE WHEN erased_at IS NULL THEN 'no' ELSE 'yes' END FROM clients WHERE id = ?`, id), "yes"},
			{"future appointment", one(`SELECT status FROM appointments WHERE id = ?`, f.erasable.FutureAppointment), "cancelled"},
			{"past appointment kept", one(`SELECT status || ' ' || client_id || ' ' || notes FROM appointments WHERE id = ?`, f.erasable.PastAppointment), "booked " + itoa(id) + " "},
			{"waiting-list entry", one(`SELECT status FROM waitlist_entries WHERE id = ?`, f.erasable.Entry), "removed"},
			{"card kept", one(`SELECT status || ' ' || client_id FROM cards WHERE id = ?`, f.erasable.Card), "active " + itoa(id)},
			{"messages emptied", one(`SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND (content <> '' OR media IS NOT NULL)`, f.erasable.Conversation), "0"},
			{"consents", one(`SELECT COUNT(*) FROM channel_consents WHERE client_id = ?`, id), "0"},
			{"tags", one(`SELECT COUNT(*) FROM client_tags WHERE client_id = ?`, id), "0"},
			{"manage links", one(`SELECT COUNT(*) FROM manage_links WHERE appointment_id = ?`, f.erasable.FutureAppointment), "0"},
			{"cancelled webhook", one(`SELECT COUNT(*) FROM outbox WHERE account_id = ? AND source_type = 'event:appointment.cancelled' AND source_id = ?`, f.acme.ID, f.erasable.FutureAppointment), "1"},
			{"erased webhook", one(`SELECT body FROM outbox WHERE account_id = ? AND source_type = 'event:client.erased' AND source_id = ?`, f.acme.ID, id), ""},
			{"audit", one(`SELECT user_name || '|' || object_type || '|' || object_id || '|' || summary FROM audit_log WHERE account_id = ? AND action = 'erased'`, f.acme.ID), "cli|client|" + itoa(id) + "|"},
			{"other client untouched", one(`SELECT first_name FROM clients WHERE id = ?`, f.kept.ClientID), pt.Kept.First},
		} {
			if c.name == "erased webhook" {
				var body map[string]any
				if json.Unmarshal([]byte(c.got), &body) != nil || body["data"].(map[string]any)["client_id"].(float64) != float64(id) {
					t.Errorf("client.erased body: %s", c.got)
				}
				continue
			}
			if c.got != c.want {
				t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
			}
		}
		if n := count(`SELECT COUNT(*) FROM jobs WHERE account_id = ? AND kind = 'webhook_delivery' AND status = 'pending' AND source_type = 'event:client.erased'`, f.acme.ID); n != 1 {
			t.Errorf("client.erased deliveries queued: %d", n)
		}
		if n := count(`SELECT COUNT(*) FROM appointments WHERE client_id = ?`, id); n != 2 {
			t.Errorf("appointments of the erased client: %d, want 2 (counts keep working)", n)
		}

		found := pt.Scan(t, store, append(pt.Erasable.Needles(), pt.Kept.Needles()...))
		for _, n := range pt.Erasable.Needles() {
			if len(found[n]) > 0 {
				t.Errorf("after erasure %q is still in %v", n, found[n])
			}
		}
		for _, n := range pt.Kept.Needles() {
			if len(found[n]) == 0 {
				t.Errorf("the other client's %q is found nowhere: the scan cannot see", n)
			}
		}

		// Irreversible: a booking with the same phone makes a new client.
		svc := "Limpieza dental"
		pro, ev := "Dr. López", "In person"
		start, _ := calendar.ParseWallTime("2026-12-01T10:00:00Z")
		end, _ := calendar.ParseWallTime("2026-12-01T10:30:00Z")
		b, err := calendar.Book(ctx, store, f.acme, calendar.BookRequest{Client: calendar.ClientInput{FirstName: "New", Phone: pt.Erasable.Phone},
			ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &ev, StartAt: start, EndAt: end, Timezone: "Europe/Madrid"}, pt.Now)
		if err != nil || !b.ClientCreated || b.ClientID == id {
			t.Fatalf("booking after erasure: %+v %v", b, err)
		}

		// Erasing twice is refused; the export still answers, empty.
		if _, err := privacy.Erase(ctx, store, f.acme, id, audit.Actor{}, pt.Now); !isCode(err, errs.ValidationError) {
			t.Fatalf("second erasure: %v", err)
		}
		out, err := export(t, f, f.acme, id)
		if err != nil || !strings.Contains(out, `"erased_at": "2026-11-23T09:00:00Z"`) && !strings.Contains(out, `"erased_at":"2026-11-23T09:00:00Z"`) {
			t.Fatalf("export after erasure: %v %s", err, out)
		}
	})
}

// TestTenancy: another account's client, and an unknown one, are not
// found; nothing is written or changed.
func TestTenancy(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		f := newFixture(t, store)
		for _, c := range []struct {
			name string
			acct account.Account
			id   int64
		}{
			{"another account's client", f.other, f.erasable.ClientID},
			{"unknown client", f.acme, 999999},
		} {
			t.Run(c.name, func(t *testing.T) {
				out, err := export(t, f, c.acct, c.id)
				if !isCode(err, errs.NotFound) || out != "" {
					t.Fatalf("export: %v %q", err, out)
				}
				if _, err := privacy.Erase(ctx, store, c.acct, c.id, audit.Actor{}, pt.Now); !isCode(err, errs.NotFound) {
					t.Fatalf("erase: %v", err)
				}
			})
		}
		found := pt.Scan(t, store, pt.Erasable.Needles())
		if len(found[strings.ToLower(pt.Erasable.Marker)]) == 0 {
			t.Fatal("a refused erasure erased")
		}
	})
}

func isCode(err error, code string) bool {
	e, ok := err.(*errs.Error)
	return ok && e.Code == code
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
