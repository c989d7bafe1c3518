package chat_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// historyKey is the API key of the bulk-loaded account.
const historyKey = "pk_test_chat_history"

// historyBase is when the first bulk-loaded conversation starts.
var historyBase = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const historyWorkspace = `account: {slug: history, name: History Clinic, timezone: Europe/Madrid, default_region: ES}
api_keys: [{key: main, value: ` + historyKey + `}]
users: [{key: u0, name: Ana Ruiz, email: ana@h.test}, {key: u1, name: Luis Gil, email: luis@h.test}, {key: u2, name: Eva Sanz, email: eva@h.test}]
ai_agents: [{key: a0, name: Sofia}, {key: a1, name: Leo}]
disposition_tags: [{key: won, name: Booked, color: "#00aa00"}, {key: lost, name: Lost, color: "#ff0000"}, {key: later, name: Later, color: "#0000ff"}]
pipelines: [{key: sales, name: Sales, stages: [{key: new, name: New, entry_point: true}]}]
`

// history describes a bulk-loaded account.
type history struct {
	acct          account.Account
	ids           workspace.IDs
	conversations int
	messages      int
	// createdAt and updatedAt of conversation i (0-based).
	createdAt func(i int) time.Time
	updatedAt func(i int) time.Time
}

var (
	firstNames = []string{"María", "José", "Lucía", "Javier", "Carmen", "Pedro", "Ana", "Diego", "Elena", "Pablo", "Sofía", "Hugo"}
	lastNames  = []string{"García", "Martín", "López", "Sánchez", "Pérez", "Gómez", "Ruiz", "Díaz", "Moreno", "Álvarez", "Romero", "Navarro", "Torres"}
	statuses   = []string{"new", "ai_handling", "human_handling", "resolved", "expired"}
	sentiments = []any{nil, "positive", "neutral", "negative"}
	senders    = []string{"client", "ai_agent", "client", "user", "client", "business_app"}
)

// loadHistory provisions an account and bulk-loads nConv conversations with
// messagesOf(i) messages each, with multi-row inserts straight into the
// tables (the API is not what is measured). Six of every seven
// conversations belong to one of nConv/2 clients; the rest are unknown
// numbers. Conversation i starts 30 minutes after i-1; its messages are 10 s
// apart, so updated_at grows with i.
func loadHistory(tb testing.TB, store *db.DB, nConv int, messagesOf func(i int) int) history {
	tb.Helper()
	ctx := context.Background()
	res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return historyBase }}).Apply(ctx, []byte(historyWorkspace))
	if err != nil {
		tb.Fatal(err)
	}
	acct, err := account.BySlug(ctx, store, "history")
	if err != nil {
		tb.Fatal(err)
	}
	h := history{acct: acct, ids: res.IDs, conversations: nConv,
		createdAt: func(i int) time.Time { return historyBase.Add(time.Duration(i) * 30 * time.Minute) }}
	h.updatedAt = func(i int) time.Time {
		if n := messagesOf(i); n > 0 {
			return h.createdAt(i).Add(time.Duration(n-1) * 10 * time.Second)
		}
		return h.createdAt(i)
	}
	agents := []int64{res.IDs.AIAgents["a0"], res.IDs.AIAgents["a1"]}
	users := []int64{res.IDs.Users["u0"], res.IDs.Users["u1"], res.IDs.Users["u2"]}
	tags := []any{nil, res.IDs.DispositionTags["won"], res.IDs.DispositionTags["lost"], res.IDs.DispositionTags["later"]}
	nClients := max(nConv/2, 1)
	national := func(i int) string { return fmt.Sprintf("6%08d", i) }

	err = store.Transact(ctx, func(tx *db.Tx) error {
		clientIDs, err := tx.Dialect().ReserveIDs(ctx, tx, "clients", nClients)
		if err != nil {
			return err
		}
		rows := make([][]any, nClients)
		for i := range rows {
			first, last := firstNames[i%len(firstNames)], lastNames[(i/len(firstNames))%len(lastNames)]+fmt.Sprint(i)
			rows[i] = []any{clientIDs[i], acct.ID, first, last, contact.SearchName(first, last), 34, national(i),
				fmt.Sprintf("c%d@example.test", i), fmt.Sprintf("c%d@example.test", i), db.Micros(historyBase), db.Micros(historyBase)}
		}
		if err := db.InsertMany(ctx, tx, `INSERT INTO clients (id, account_id, first_name, last_name, name_search, phone_cc, phone_national,
			email, email_norm, created_at, updated_at)`, rows, ""); err != nil {
			return err
		}
		// One in ten clients has a card with an assignee.
		var cards [][]any
		for i := 0; i < nClients; i += 10 {
			cards = append(cards, []any{acct.ID, res.IDs.Pipelines["sales"], clientIDs[i], res.IDs.Stages["sales/new"], users[i%len(users)],
				db.Micros(historyBase), db.Micros(historyBase), db.Micros(historyBase)})
		}
		return db.InsertMany(ctx, tx, `INSERT INTO cards (account_id, pipeline_id, client_id, stage_id, assigned_user_id, added_at, stage_entered_at, updated_at)`, cards, "")
	})
	if err != nil {
		tb.Fatal(err)
	}

	var convIDs []int64
	err = store.Transact(ctx, func(tx *db.Tx) error {
		convIDs, err = tx.Dialect().ReserveIDs(ctx, tx, "conversations", nConv)
		if err != nil {
			return err
		}
		rows := make([][]any, nConv)
		for i := range rows {
			nat := national(i % nClients)
			if i%7 == 6 {
				nat = fmt.Sprintf("7%08d", i) // no client has it
			}
			var last any
			if messagesOf(i) > 0 {
				last = db.Micros(h.updatedAt(i))
			}
			rows[i] = []any{convIDs[i], acct.ID, fmt.Sprintf("k%d", i), "+34" + nat, nat, statuses[i%len(statuses)], []string{"inbound", "outbound"}[i%2],
				tags[i%len(tags)], sentiments[i%len(sentiments)], "summary", messagesOf(i), db.Micros(h.createdAt(i)), db.Micros(h.updatedAt(i)), last}
		}
		return db.InsertMany(ctx, tx, `INSERT INTO conversations (id, account_id, file_key, customer_phone_number, phone_national, status, direction,
			disposition_tag_id, sentiment, summary, message_count, created_at, updated_at, last_message_at)`, rows, "")
	})
	if err != nil {
		tb.Fatal(err)
	}

	// Messages in transactions of about 50,000 rows.
	const chunk = 50_000
	var rows [][]any
	flush := func() {
		if len(rows) == 0 {
			return
		}
		err := store.Transact(ctx, func(tx *db.Tx) error {
			return db.InsertMany(ctx, tx, `INSERT INTO messages (account_id, conversation_id, sender_kind, ai_agent_id, user_id, message_type,
				content, media, model, tokens, cost, storage_key, sent_at, created_at)`, rows, "")
		})
		if err != nil {
			tb.Fatal(err)
		}
		h.messages += len(rows)
		rows = rows[:0]
	}
	content := strings.Repeat("Hola, quería pedir cita para una limpieza. ", 2)
	for i, conv := range convIDs {
		start := h.createdAt(i)
		for j := range messagesOf(i) {
			kind := senders[(i+j)%len(senders)]
			var agent, user, media, model, tokens, cost any
			switch kind {
			case "ai_agent":
				agent, model, tokens, cost = agents[(i+j)%len(agents)], "internal-model", 120, 0.0012
			case "user":
				user = users[(i+j)%len(users)]
			case "business_app":
				media = `{"kind":"image","mime":"image/jpeg","filename":"x.jpg","caption":null}`
			}
			at := db.Micros(start.Add(time.Duration(j) * 10 * time.Second))
			rows = append(rows, []any{acct.ID, conv, kind, agent, user, "text", content, media, model, tokens, cost, nil, at, at})
			if len(rows) == chunk {
				flush()
			}
		}
	}
	flush()
	if _, err := store.Exec(ctx, "ANALYZE"); err != nil {
		tb.Fatal(err)
	}
	return h
}
