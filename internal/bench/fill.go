package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// fixture is the provisioned bench account and what has been bulk-loaded
// into it. Bulk loads write straight into the tables with db.InsertMany in
// transactions of chunk rows: they set the stage, they are not measured.
type fixture struct {
	store *db.DB
	acct  account.Account
	ids   workspace.IDs
	// bulk is the number of bulk-loaded clients; client i has the national
	// number bulkNational(i).
	bulk int
	// background conversations loaded so far, and their messages.
	bgConversations, bgMessages int
	// page holds the 50 conversations of 500 messages the chat page reads
	// (loaded once), and pageUpdated the updated_at of the oldest of them.
	page        []int64
	pageUpdated time.Time
	// limitsSeed are the nationals of the limits floor's stored contacts.
	limitsSeed []string
}

// chunk is how many rows one bulk-load transaction inserts.
const chunk = 50_000

var (
	firstNames = []string{"María", "José", "Lucía", "Javier", "Carmen", "Pedro", "Ana", "Diego", "Elena", "Pablo", "Sofía", "Hugo"}
	lastNames  = []string{"García", "Martín", "López", "Sánchez", "Pérez", "Gómez", "Ruiz", "Díaz", "Moreno", "Álvarez", "Romero", "Navarro", "Torres"}
	statuses   = []string{"new", "ai_handling", "human_handling", "resolved", "expired"}
	senders    = []string{"client", "ai_agent", "client", "user", "client", "business_app"}
)

// bulkNational is the national number of bulk-loaded client i (a Spanish
// mobile range of its own: the measured batches use 680 000 000 and up).
func bulkNational(i int) string { return fmt.Sprintf("%09d", 620_000_000+i) }

// loadClients bulk-loads n more clients; one in ten gets a card on the sales
// pipeline (spread over its stages, with an assignee), as an account that
// has been ingesting for a while would have.
func (f *fixture) loadClients(ctx context.Context, n int) error {
	now := db.Micros(time.Now())
	stages := []int64{f.ids.Stages["sales/new"], f.ids.Stages["sales/contacted"], f.ids.Stages["sales/lost"]}
	users := []int64{f.ids.Users["ana"], f.ids.Users["luis"]}
	for done := 0; done < n; {
		size := min(chunk, n-done)
		err := f.store.Transact(ctx, func(tx *db.Tx) error {
			ids, err := tx.Dialect().ReserveIDs(ctx, tx, "clients", size)
			if err != nil {
				return err
			}
			rows := make([][]any, size)
			var cards [][]any
			for j := range rows {
				i := f.bulk + done + j
				first, last := firstNames[i%len(firstNames)], lastNames[(i/len(firstNames))%len(lastNames)]
				email := fmt.Sprintf("c%d@bulk.example", i)
				rows[j] = []any{ids[j], f.acct.ID, first, last, contact.SearchName(first, last), contact.SearchText(first, last, email, ""), 34, bulkNational(i),
					email, email, `{"source":"bulk"}`, now, now}
				if i%10 == 0 {
					cards = append(cards, []any{f.acct.ID, f.ids.Pipelines["sales"], ids[j], stages[(i/10)%len(stages)], users[i%len(users)],
						150.0, now, now, now})
				}
			}
			if err := db.InsertMany(ctx, tx, `INSERT INTO clients (id, account_id, first_name, last_name, name_search, search_text, phone_cc, phone_national,
				email, email_norm, data, created_at, updated_at)`, rows, ""); err != nil {
				return err
			}
			return db.InsertMany(ctx, tx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, assigned_user_id, lead_value,
				added_at, stage_entered_at, updated_at)`, cards, "")
		})
		if err != nil {
			return fmt.Errorf("bulk-load clients: %w", err)
		}
		done += size
	}
	f.bulk += n
	return f.settle(ctx, "clients", "cards")
}

// settle does after a bulk load what a live store would have done long
// before the next batch arrived, so the measured requests do not pay for
// the load: on PostgreSQL VACUUM (ANALYZE) of the loaded tables (autovacuum's
// work: statistics and the visibility map); on SQLite a WAL checkpoint (no
// ANALYZE: Frontdesk never runs it on SQLite). Only this schema's tables
// are named: the database is shared.
func (f *fixture) settle(ctx context.Context, tables ...string) error {
	if f.store.Engine() == db.Postgres {
		_, err := f.store.Exec(ctx, "VACUUM (ANALYZE) "+strings.Join(tables, ", "))
		return err
	}
	_, err := f.store.Exec(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// loadAppointments books 2,500 appointments over the next 90 days and 10,000
// over the past year, on the working days of the five professionals, so
// availability subtracts real bookings (and must not wade through the past).
func (f *fixture) loadAppointments(ctx context.Context, now time.Time) error {
	madrid, err := time.LoadLocation("Europe/Madrid")
	if err != nil {
		return err
	}
	pros := []string{"p0", "p1", "p2", "p3", "p4"}
	serviceOf := map[string]string{"p0": "cleaning", "p1": "ortho", "p2": "cleaning", "p3": "physio", "p4": "checkup"}
	clients := []int64{f.ids.Clients["maria"], f.ids.Clients["jose"], f.ids.Clients["lucia"]}
	r := rand.New(rand.NewPCG(1, 2))
	var rows [][]any
	add := func(n int, from time.Time, days int) {
		for range n {
			d := from.In(madrid).AddDate(0, 0, r.IntN(days))
			start := time.Date(d.Year(), d.Month(), d.Day(), 9, 30*r.IntN(16), 0, 0, madrid)
			end := start.Add(time.Duration(30*(1+r.IntN(2))) * time.Minute)
			p := pros[r.IntN(len(pros))]
			rows = append(rows, []any{f.acct.ID, clients[len(rows)%len(clients)], f.ids.Services[serviceOf[p]], f.ids.Professionals[p],
				f.ids.EventTypes["visit"], db.Micros(start), db.Micros(end), "Europe/Madrid", "booked", "api", db.Micros(now), db.Micros(now)})
		}
	}
	add(2_500, now, 90)
	add(10_000, now.AddDate(-1, 0, 0), 365)
	return f.store.Transact(ctx, func(tx *db.Tx) error {
		return db.InsertMany(ctx, tx, `INSERT INTO appointments (account_id, client_id, service_id, professional_id, event_type_id,
			start_at, end_at, timezone, status, source, created_at, updated_at)`, rows, "")
	})
}

// historyBase is when the first background conversation starts; each next
// one starts 30 minutes later, so all of them are older than the page's.
var historyBase = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// messagesPerBackground is the length of a background conversation.
const messagesPerBackground = 80

// loadPage loads the 50 conversations of 500 messages each that the chat
// page reads: the newest of the account, 10 seconds between messages, each
// with a client when bulk-loaded clients exist.
func (f *fixture) loadPage(ctx context.Context, now time.Time) error {
	const sessions, perSession = 50, 500
	start := now.Add(-48 * time.Hour).Truncate(time.Second)
	convs := make([]conv, sessions)
	for i := range convs {
		nat := fmt.Sprintf("93%07d", i) // nobody's
		if f.bulk >= sessions {
			nat = bulkNational(i * (f.bulk / sessions))
		}
		convs[i] = conv{key: fmt.Sprintf("page%d", i), national: nat, created: start.Add(time.Duration(i) * time.Minute), messages: perSession, seq: i}
	}
	ids, err := f.loadConversations(ctx, convs)
	if err != nil {
		return err
	}
	f.page = ids
	f.pageUpdated = convs[0].updated()
	return f.settle(ctx, "conversations", "messages")
}

// loadBackground adds background conversations of 80 messages until they
// hold n messages in all.
func (f *fixture) loadBackground(ctx context.Context, n int) error {
	var convs []conv
	for total := f.bgMessages; total < n; {
		m := min(messagesPerBackground, n-total)
		i := f.bgConversations + len(convs)
		nat := fmt.Sprintf("93%07d", 1000+i)
		if f.bulk > 0 && i%7 != 6 { // six in seven are from a known client
			nat = bulkNational((i * 7919) % f.bulk)
		}
		convs = append(convs, conv{key: fmt.Sprintf("bg%d", i), national: nat,
			created: historyBase.Add(time.Duration(i) * 30 * time.Minute), messages: m, seq: i})
		total += m
	}
	if _, err := f.loadConversations(ctx, convs); err != nil {
		return err
	}
	for _, c := range convs {
		f.bgConversations++
		f.bgMessages += c.messages
	}
	return f.settle(ctx, "conversations", "messages")
}

type conv struct {
	key, national string
	created       time.Time
	messages      int
	seq           int
}

func (c conv) updated() time.Time {
	return c.created.Add(time.Duration(max(c.messages-1, 0)) * 10 * time.Second)
}

// loadConversations inserts convs and their messages and returns their ids.
func (f *fixture) loadConversations(ctx context.Context, convs []conv) ([]int64, error) {
	agents := []int64{f.ids.AIAgents["sofia"], f.ids.AIAgents["leo"]}
	users := []int64{f.ids.Users["ana"], f.ids.Users["luis"]}
	tags := []any{nil, f.ids.DispositionTags["won"], f.ids.DispositionTags["lost"], f.ids.DispositionTags["later"]}
	var ids []int64
	for start := 0; start < len(convs); start += chunk {
		part := convs[start:min(start+chunk, len(convs))]
		err := f.store.Transact(ctx, func(tx *db.Tx) error {
			got, err := tx.Dialect().ReserveIDs(ctx, tx, "conversations", len(part))
			if err != nil {
				return err
			}
			rows := make([][]any, len(part))
			for j, c := range part {
				rows[j] = []any{got[j], f.acct.ID, c.key, "+34" + c.national, c.national, statuses[c.seq%len(statuses)],
					[]string{"inbound", "outbound"}[c.seq%2], tags[c.seq%len(tags)], "Asked for an appointment", c.messages,
					db.Micros(c.created), db.Micros(c.updated()), db.Micros(c.updated())}
			}
			ids = append(ids, got...)
			return db.InsertMany(ctx, tx, `INSERT INTO conversations (id, account_id, file_key, customer_phone_number, phone_national,
				status, direction, disposition_tag_id, summary, message_count, created_at, updated_at, last_message_at)`, rows, "")
		})
		if err != nil {
			return nil, fmt.Errorf("bulk-load conversations: %w", err)
		}
	}
	content := strings.Repeat("Hola, quería pedir cita para una limpieza. ", 2)
	var rows [][]any
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := f.store.Transact(ctx, func(tx *db.Tx) error {
			return db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, ai_agent_id, user_id,
				message_type, content, media, model, tokens, cost, sent_at, created_at)`, rows, "")
		})
		rows = rows[:0]
		if err != nil {
			return fmt.Errorf("bulk-load messages: %w", err)
		}
		return nil
	}
	for k, c := range convs {
		for j := range c.messages {
			kind := senders[(c.seq+j)%len(senders)]
			var agent, user, media, model, tokens, cost any
			switch kind {
			case "ai_agent":
				agent, model, tokens, cost = agents[(c.seq+j)%len(agents)], "internal-model", 120, 0.0012
			case "user":
				user = users[(c.seq+j)%len(users)]
			case "business_app":
				media = `{"kind":"image","mime":"image/jpeg","filename":"x.jpg","caption":null}`
			}
			at := db.Micros(c.created.Add(time.Duration(j) * 10 * time.Second))
			rows = append(rows, []any{f.acct.ID, ids[k], kind, agent, user, "text", content, media, model, tokens, cost, at, at})
			if len(rows) == chunk {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	return ids, flush()
}

// countClients is the number of clients stored in the bench account.
func (f *fixture) countClients(ctx context.Context) (int, error) {
	var n int
	err := f.store.QueryRow(ctx, `SELECT COUNT(*) FROM clients WHERE account_id = ?`, f.acct.ID).Scan(&n)
	return n, err
}

// countMessages is the number of messages stored in the bench account.
func (f *fixture) countMessages(ctx context.Context) (int, error) {
	var n int
	err := f.store.QueryRow(ctx, `SELECT COUNT(*) FROM messages WHERE account_id = ?`, f.acct.ID).Scan(&n)
	return n, err
}

// resetAbove deletes every client with an id above watermark and what the
// measured requests wrote for them (cards and their events, waiting-list
// entries, tags), so each round starts from the level's stated size.
//
// The deletes run with foreign-key checks off: the rows that referenced the
// clients go first, and checking each deleted client against tables that
// have no index led by client_id (appointments, cards) would scan them once
// per client. SQLite turns the checks off per connection, outside a
// transaction; PostgreSQL per transaction with session_replication_role,
// which needs a superuser: without one the checks stay on (slower, same
// result).
func (f *fixture) resetAbove(ctx context.Context, watermark int64) error {
	conn, err := f.store.SQL().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	d := f.store.Dialect()
	if d.Engine == db.SQLite {
		if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
			return err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA foreign_keys = ON")
	}
	run := func(replica bool) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if replica {
			if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
				return err
			}
		}
		for _, q := range []string{
			`DELETE FROM card_events WHERE account_id = ? AND card_id IN (SELECT id FROM cards WHERE account_id = ? AND client_id > ?)`,
			`DELETE FROM cards WHERE account_id = ? AND client_id > ?`,
			`DELETE FROM waitlist_entries WHERE account_id = ? AND client_id > ?`,
			`DELETE FROM client_tags WHERE account_id = ? AND client_id > ?`,
			`DELETE FROM clients WHERE account_id = ? AND id > ?`,
		} {
			args := []any{f.acct.ID, watermark}
			if strings.Count(q, "?") == 3 {
				args = []any{f.acct.ID, f.acct.ID, watermark}
			}
			if _, err := tx.ExecContext(ctx, d.Rebind(q), args...); err != nil {
				return fmt.Errorf("reset: %w", err)
			}
		}
		return tx.Commit()
	}
	if d.Engine == db.Postgres {
		if err := run(true); err == nil {
			return nil
		}
	}
	return run(false)
}

// maxClientID is the highest client id of the store.
func (f *fixture) maxClientID(ctx context.Context) (int64, error) {
	var id int64
	err := f.store.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM clients`).Scan(&id)
	return id, err
}
