package manage_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/manage"
	"github.com/frontdesk/frontdesk/internal/managelink"
	"github.com/frontdesk/frontdesk/internal/secrets"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// env is the acme fixture on Monday 2026-11-30 at 09:00 Madrid, with a
// webhook for every event, a second account (beta) and links configured.
type env struct {
	t     *testing.T
	store *db.DB
	ctx   context.Context
	acct  account.Account
	beta  account.Account
	now   time.Time
	box   *secrets.Box
}

const publicURL = "https://fd.example"

var testKey = []byte("0123456789abcdef0123456789abcdef")

const extra = `account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}
webhooks: [{key: all, url: "https://example.test/all", active: true}]`

const beta = `account: {slug: beta, name: Beta Clinic, timezone: Europe/Madrid, default_region: ES}
event_types: [{key: visit, name: In person, active: true}]
professionals: [{key: ruiz, name: Dr. Ruiz, active: true, working_hours: {tue: ["09:00-17:00"]}}]
services: [{key: cleaning, name: Limpieza, default_duration_minutes: 30, professionals: [ruiz], event_types: [visit]}]`

func newEnv(t *testing.T, store *db.DB) *env {
	t.Helper()
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	ws := &workspace.Applier{DB: store, Now: func() time.Time { return now }}
	data, err := os.ReadFile("../workspace/testdata/acme.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range [][]byte{data, []byte(extra), []byte(beta)} {
		if _, err := ws.Apply(context.Background(), doc); err != nil {
			t.Fatal(err)
		}
	}
	box, err := secrets.New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: store, now: now, box: box,
		ctx: managelink.WithConfig(context.Background(), managelink.Config{PublicURL: publicURL, Secrets: box})}
	e.acct, _ = account.BySlug(e.ctx, store, "acme")
	e.beta, _ = account.BySlug(e.ctx, store, "beta")
	return e
}

// book books a client of acct at a wall-clock start (Madrid) for 30
// minutes, as the public API would, and returns the appointment's id.
func (e *env) book(acct account.Account, phone, wall string) int64 {
	e.t.Helper()
	svc, pro := "Limpieza dental", "Dr. López"
	if acct.ID == e.beta.ID {
		svc, pro = "Limpieza", "Dr. Ruiz"
	}
	start, _ := calendar.ParseWallTime(wall)
	at, _ := time.ParseInLocation("2006-01-02T15:04:05", wall, time.UTC)
	end, _ := calendar.ParseWallTime(at.Add(30 * time.Minute).Format("2006-01-02T15:04:05"))
	et := "In person"
	b, err := calendar.Book(e.ctx, e.store, acct, calendar.BookRequest{Client: calendar.ClientInput{Phone: phone, FirstName: "Eva", LastName: "Sanz"},
		ServiceName: &svc, ProfessionalName: &pro, EventTypeName: &et, StartAt: start, EndAt: end, Timezone: "Europe/Madrid"}, e.now)
	if err != nil {
		e.t.Fatal(err)
	}
	return b.Appointment.ID
}

// token is the token of an appointment's link.
func (e *env) token(acct account.Account, id int64) string {
	e.t.Helper()
	link, err := manage.URL(e.ctx, e.store, acct, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return link[len(publicURL+"/m/"):]
}

// events are the data of the webhook events of a type for an appointment.
func (e *env) events(typ string, id int64) []map[string]any {
	e.t.Helper()
	rows, err := e.store.Query(e.ctx, `SELECT body FROM outbox WHERE source_type = ? AND source_id = ? ORDER BY id`, "event:"+typ, id)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var body string
		rows.Scan(&body)
		var ev struct {
			Data map[string]any `json:"data"`
		}
		json.Unmarshal([]byte(body), &ev)
		out = append(out, ev.Data)
	}
	return out
}

func (e *env) status(id int64) (status, confirmation string) {
	e.t.Helper()
	if err := e.store.QueryRow(e.ctx, `SELECT status, confirmation_status FROM appointments WHERE id = ?`, id).Scan(&status, &confirmation); err != nil {
		e.t.Fatal(err)
	}
	return status, confirmation
}

// strings runs a query of one text column.
func (e *env) strings(query string, args ...any) []string {
	e.t.Helper()
	rows, err := e.store.Query(e.ctx, query, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// professional is the id of acme's professional of that name.
func (e *env) professional(name string) int64 {
	e.t.Helper()
	var id int64
	if err := e.store.QueryRow(e.ctx, `SELECT id FROM professionals WHERE account_id = ? AND name = ?`, e.acct.ID, name).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	return id
}
