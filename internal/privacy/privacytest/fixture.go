// Package privacytest builds the data-rights tests' fixture: a client with
// a record of every kind, each carrying the client's markers, and the scan
// of every text column of every table (docs/data-rights.md). The privacy
// package, the CLI and the dashboard test against the same fixture.
package privacytest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
)

// Person is a fixture client: every value is distinct from any other
// person's, so finding one anywhere says whose data it is.
type Person struct {
	First, Last, Phone, National, Email, NationalID, Marker string
	// Tag is a label the team gives the client: the account's
	// vocabulary, not the client's data (it stays after erasure).
	Tag string
}

// Needles are the person's personal data as a scan looks for them (lower
// case).
func (p Person) Needles() []string {
	out := []string{p.Phone, p.National, p.Email, p.First, p.Last, p.NationalID, p.Marker}
	for i := range out {
		out[i] = strings.ToLower(out[i])
	}
	return out
}

// Erasable is the client the tests export and erase; Kept is the other
// client of the same account, whose data must never leak nor go.
var (
	Erasable = Person{First: "Zebulonia", Last: "Quixotewick", Phone: "+34699100200", National: "699100200",
		Email: "zeb.quix@erase.test", NationalID: "12345678Z", Marker: "MRKERASE7731", Tag: "needs-follow-up"}
	Kept = Person{First: "Otheria", Last: "Marksworth", Phone: "+34699300400", National: "699300400",
		Email: "oth.marks@keep.test", NationalID: "87654321X", Marker: "MRKKEEP4410", Tag: "recall-in-spring"}
)

// Secrets are known secret strings the fixture stores (channel
// credentials, a webhook's secret and its URL's token, the API key of
// acme.yaml, a verification code sent to the client): no export may hold
// one.
var Secrets = []string{"918273", "CHANNEL-CREDENTIAL-SECRET-9f3", "WEBHOOK-SECRET-5e1", "WEBHOOK-URL-TOKEN-77a", "s3cret", "pk_test_acme_main"}

// Records are the ids of what Seed made for one person.
type Records struct {
	ClientID, PastAppointment, FutureAppointment, Entry, Card, Conversation int64
}

// Now is the fixture's clock: a Monday morning.
var Now = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// SeedAccount adds what every person's records need to an account
// provisioned from acme.yaml: a channel with credentials and a webhook for
// every event, both holding Secrets.
func SeedAccount(t testing.TB, store *db.DB, acct account.Account) {
	t.Helper()
	us := db.Micros(Now)
	exec(t, store, `INSERT INTO channels (account_id, file_key, uuid, type, provider, from_address, credentials, created_at, updated_at)
		VALUES (?, 'wa', ?, 'whatsapp', 'twilio', '+34900000000', '{"token":"CHANNEL-CREDENTIAL-SECRET-9f3"}', ?, ?)`, acct.ID, db.NewUUID(), us, us)
	exec(t, store, `INSERT INTO webhooks (account_id, file_key, url, events, secret, active)
		VALUES (?, 'everything', 'https://hooks.example.test/all?token=WEBHOOK-URL-TOKEN-77a', '[]', 'WEBHOOK-SECRET-5e1', TRUE)`, acct.ID)
}

// Seed gives p a record of every kind in acct: a past and a future
// appointment (booked through the calendar, so their messages are queued),
// the patient fields, custom data, a tag, a waiting-list entry, a pipeline
// card with history, a conversation with messages in and out, an
// automation message, a consent, an audit entry, a verification code, a
// manage link and a stored API answer.
func Seed(t testing.TB, store *db.DB, acct account.Account, p Person, hour int) Records {
	t.Helper()
	ctx := context.Background()
	var r Records
	ids := func(q string) int64 {
		var id int64
		if err := store.QueryRow(ctx, q+` WHERE account_id = ? ORDER BY id LIMIT 1`, acct.ID).Scan(&id); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return id
	}
	svc, pro, et := ids(`SELECT id FROM services`), ids(`SELECT id FROM professionals`), ids(`SELECT id FROM event_types`)
	book := func(day time.Time) int64 {
		start, _ := calendar.ParseWallTime(day.Format("2006-01-02T15:04:05Z"))
		end, _ := calendar.ParseWallTime(day.Add(30 * time.Minute).Format("2006-01-02T15:04:05Z"))
		b, err := calendar.Book(ctx, store, acct, calendar.BookRequest{
			Client:    calendar.ClientInput{FirstName: p.First, LastName: p.Last, Phone: p.Phone, Email: p.Email},
			ServiceID: &svc, ProfessionalID: &pro, EventTypeID: &et, StartAt: start, EndAt: end, Timezone: "Europe/Madrid",
			Notes: "notes " + p.Marker}, Now)
		if err != nil {
			t.Fatalf("book: %v", err)
		}
		r.ClientID = b.ClientID
		return b.Appointment.ID
	}
	r.PastAppointment = book(time.Date(2026, 11, 16, hour, 0, 0, 0, time.UTC))
	r.FutureAppointment = book(time.Date(2026, 11, 30, hour, 0, 0, 0, time.UTC))
	if err := contact.UpdateClient(ctx, store, acct, r.ClientID, contact.ClientUpdate{FirstName: p.First, LastName: p.Last, Email: p.Email,
		Company: "Company " + p.Marker, Timezone: "Europe/Madrid", Data: map[string]any{"marker": p.Marker, "allergy": "penicillin " + p.Marker},
		NationalID: p.NationalID, Insurer: "Insurer " + p.Marker, InsurancePolicy: "POL-" + p.Marker}, Now); err != nil {
		t.Fatalf("update client: %v", err)
	}
	if err := contact.AddClientTag(ctx, store, acct, r.ClientID, p.Tag, Now); err != nil {
		t.Fatalf("tag: %v", err)
	}
	us := db.Micros(Now)
	wl := ids(`SELECT id FROM waitlists`)
	r.Entry = insertID(t, store, `INSERT INTO waitlist_entries (account_id, waitlist_id, client_id, service_id, notes, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, acct.ID, wl, r.ClientID, svc, "entry "+p.Marker, us, us)
	pipe := ids(`SELECT id FROM pipelines`)
	var stage1, stage2 int64
	store.QueryRow(ctx, `SELECT MIN(id), MAX(id) FROM stages WHERE account_id = ? AND pipeline_id = ?`, acct.ID, pipe).Scan(&stage1, &stage2)
	r.Card = insertID(t, store, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, added_at, stage_entered_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, acct.ID, pipe, r.ClientID, stage2, us, us, us)
	exec(t, store, `INSERT INTO card_events (account_id, card_id, kind, to_stage_id, source, created_at) VALUES (?, ?, 'placed', ?, 'api', ?)`, acct.ID, r.Card, stage1, us)
	exec(t, store, `INSERT INTO card_events (account_id, card_id, kind, from_stage_id, to_stage_id, source, created_at) VALUES (?, ?, 'moved', ?, ?, 'dashboard', ?)`,
		acct.ID, r.Card, stage1, stage2, us+1)
	r.Conversation = insertID(t, store, `INSERT INTO conversations (account_id, customer_phone_number, phone_national, status, summary, message_count, created_at, updated_at, last_message_at)
		VALUES (?, ?, ?, 'open', ?, 3, ?, ?, ?) RETURNING id`, acct.ID, p.Phone, p.National, "summary "+p.Marker, us, us, us)
	for i, m := range []struct{ kind, text string }{
		{"client", "Hi, I am " + p.First + " " + p.Last + ", " + p.Email + " " + p.Marker},
		{"user", "Hello " + p.First + ", noted " + p.Marker},
		{"ai_agent", "Your appointment, " + p.First + " " + p.Marker},
	} {
		exec(t, store, `INSERT INTO messages (account_id, conversation_id, sender_kind, content, media, sent_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			acct.ID, r.Conversation, m.kind, m.text, `{"caption":"`+p.Marker+`"}`, us+int64(i), us)
	}
	exec(t, store, `INSERT INTO outbox (account_id, kind, channel, recipient, client_id, body, status, scheduled_at, created_at, source_type, sent_at)
		VALUES (?, 'automation_message', 'whatsapp', ?, ?, ?, 'sent', ?, ?, 'stage', ?)`, acct.ID, p.Phone, r.ClientID, "Hola "+p.First+" "+p.Marker, us, us, us)
	exec(t, store, `INSERT INTO outbox (account_id, kind, channel, recipient, body, status, scheduled_at, created_at, source_type, sent_at)
		VALUES (?, 'verification_code', 'whatsapp', ?, 'Tu código: 918273', 'sent', ?, ?, 'patients', ?)`, acct.ID, p.Phone, us, us, us)
	var channel int64
	store.QueryRow(ctx, `SELECT id FROM channels WHERE account_id = ? AND file_key = 'wa'`, acct.ID).Scan(&channel)
	exec(t, store, `INSERT INTO channel_consents (account_id, client_id, channel_id, opted_out, opted_out_at) VALUES (?, ?, ?, TRUE, ?)`, acct.ID, r.ClientID, channel, us)
	if err := audit.Record(ctx, store, acct, audit.Actor{UserID: 0, UserName: "Front desk"}, "updated", "client", itoa(r.ClientID), "insurer: "+p.Marker, Now); err != nil {
		t.Fatal(err)
	}
	exec(t, store, `INSERT INTO verification_codes (account_id, phone, client_addr, code_salt, code_hash, created_at, expires_at) VALUES (?, ?, '127.0.0.1', 'salt', 'hash', ?, ?)`,
		acct.ID, p.Phone, us, us+600e6)
	exec(t, store, `INSERT INTO manage_links (digest, account_id, appointment_id, created_at) VALUES (?, ?, ?, ?)`, db.NewUUID(), acct.ID, r.FutureAppointment, us)
	exec(t, store, `INSERT INTO idempotency_keys (account_id, idem_key, route, request_hash, state, response_status, response_type, response_body, created_at, locked_until)
		VALUES (?, ?, 'POST /book', 'h', 'done', 201, 'application/json', ?, ?, ?)`, acct.ID, db.NewUUID(), `{"client":{"name":"`+p.First+`","phone":"`+p.Phone+`"}}`, us, us)
	return r
}

func exec(t testing.TB, store *db.DB, q string, args ...any) {
	t.Helper()
	if _, err := store.Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func insertID(t testing.TB, store *db.DB, q string, args ...any) int64 {
	t.Helper()
	var id int64
	if err := store.QueryRow(context.Background(), q, args...).Scan(&id); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return id
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
