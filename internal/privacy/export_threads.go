package privacy

// The export's longer sections: pipeline cards with their history,
// conversations with every message, and the messages sent to the client.
// Each reads its parent rows first, then streams the children of one
// parent at a time.

import (
	"context"
	"database/sql"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

func exportCards(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	type card struct {
		ID                                   int64
		Pipeline, Stage, Status, EntrySource string
		LeadValue                            *float64
		added, entered                       int64
		removed                              sql.NullInt64
	}
	var cards []card
	err := each(ctx, q, `SELECT c.id, p.name, st.name, c.status, c.entry_source, c.lead_value, c.added_at, c.stage_entered_at, c.removed_at
		FROM cards c JOIN pipelines p ON p.account_id = c.account_id AND p.id = c.pipeline_id JOIN stages st ON st.account_id = c.account_id AND st.id = c.stage_id
		WHERE c.account_id = ? AND c.client_id = ? ORDER BY c.id`, []any{acct.ID, s.client.ID}, func(r *sql.Rows) error {
		var c card
		if err := r.Scan(&c.ID, &c.Pipeline, &c.Stage, &c.Status, &c.EntrySource, &c.LeadValue, &c.added, &c.entered, &c.removed); err != nil {
			return err
		}
		cards = append(cards, c)
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range cards {
		history := []map[string]any{}
		err := each(ctx, q, `SELECT e.kind, fs.name, ts.name, e.source, e.created_at FROM card_events e
			LEFT JOIN stages fs ON fs.account_id = e.account_id AND fs.id = e.from_stage_id LEFT JOIN stages ts ON ts.account_id = e.account_id AND ts.id = e.to_stage_id
			WHERE e.account_id = ? AND e.card_id = ? ORDER BY e.id`, []any{acct.ID, c.ID}, func(r *sql.Rows) error {
			var kind, source string
			var from, to sql.NullString
			var created int64
			if err := r.Scan(&kind, &from, &to, &source, &created); err != nil {
				return err
			}
			history = append(history, map[string]any{"kind": kind, "from_stage": nullStr(from), "to_stage": nullStr(to), "source": source, "at": at(created)})
			return nil
		})
		if err != nil {
			return err
		}
		if err := d.item(map[string]any{"id": c.ID, "pipeline": c.Pipeline, "stage": c.Stage, "status": c.Status, "entry_source": c.EntrySource,
			"lead_value": c.LeadValue, "added_at": at(c.added), "stage_entered_at": at(c.entered), "removed_at": stamp(c.removed), "history": history}); err != nil {
			return err
		}
	}
	return nil
}

// exportConversations writes the conversations held with the client's
// phone, each with every message (the client's, the team's and the AI's),
// streamed. Internal fields (model, tokens, cost, storage keys) stay out.
func exportConversations(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	if s.national == "" {
		return nil
	}
	type conv struct {
		id, created                       int64
		phone, status, direction, summary string
		sentiment                         sql.NullString
		count                             int
		last                              sql.NullInt64
	}
	var convs []conv
	err := each(ctx, q, `SELECT id, customer_phone_number, status, direction, sentiment, summary, message_count, created_at, last_message_at
		FROM conversations WHERE account_id = ? AND phone_national = ? ORDER BY id`, []any{acct.ID, s.national}, func(r *sql.Rows) error {
		var c conv
		if err := r.Scan(&c.id, &c.phone, &c.status, &c.direction, &c.sentiment, &c.summary, &c.count, &c.created, &c.last); err != nil {
			return err
		}
		convs = append(convs, c)
		return nil
	})
	if err != nil {
		return err
	}
	for i, c := range convs {
		if i > 0 {
			d.raw(",")
		}
		head := map[string]any{"id": c.id, "customer_phone_number": c.phone, "status": c.status, "direction": c.direction,
			"sentiment": nullStr(c.sentiment), "summary": c.summary, "message_count": c.count, "created_at": at(c.created), "last_message_at": stamp(c.last)}
		// The conversation object is written open, its messages streamed
		// into it, then closed.
		d.raw("\n    {")
		for k, key := range []string{"id", "customer_phone_number", "status", "direction", "sentiment", "summary", "message_count", "created_at", "last_message_at"} {
			if k > 0 {
				d.raw(", ")
			}
			d.value(key)
			d.raw(": ")
			d.value(head[key])
		}
		d.raw(`, "messages": [`)
		first := true
		err := each(ctx, q, `SELECT id, sender_kind, message_type, content, media, sent_at FROM messages
			WHERE account_id = ? AND conversation_id = ? ORDER BY sent_at, id`, []any{acct.ID, c.id}, func(r *sql.Rows) error {
			var id, sent int64
			var sender, typ, content string
			var media sql.NullString
			if err := r.Scan(&id, &sender, &typ, &content, &media, &sent); err != nil {
				return err
			}
			if !first {
				d.raw(",")
			}
			first = false
			d.raw("\n      ")
			var m any
			if media.Valid {
				m = rawJSON(media.String)
			}
			d.value(map[string]any{"id": id, "sender": sender, "message_type": typ, "content": content, "media": m, "sent_at": at(sent)})
			return d.err
		})
		if err != nil {
			return err
		}
		d.raw("]}")
	}
	return d.err
}

// exportOutbox writes the messages sent (or to be sent) to the client:
// those naming them, and those addressed to their phone. A webhook call's
// URL is left out (it may carry a token), and so is a verification code's
// text (the code).
func exportOutbox(ctx context.Context, q db.Querier, acct account.Account, s subject, d *doc) error {
	return each(ctx, q, `SELECT id, kind, channel, recipient, body, status, scheduled_at, created_at, sent_at, delivered_at
		FROM outbox WHERE account_id = ? AND (client_id = ? OR (recipient = ? AND recipient <> '' AND kind <> ?)) ORDER BY id`,
		[]any{acct.ID, s.client.ID, s.e164, jobs.MsgWebhook}, func(r *sql.Rows) error {
			var (
				id, scheduled, created             int64
				kind, channel, recipient, body, st string
				sent, delivered                    sql.NullInt64
			)
			if err := r.Scan(&id, &kind, &channel, &recipient, &body, &st, &scheduled, &created, &sent, &delivered); err != nil {
				return err
			}
			var to *string
			if kind != jobs.MsgWebhook {
				to = &recipient
			}
			if kind == jobs.MsgVerificationCode {
				body = "" // a one-time code is a secret, even once sent
			}
			return d.item(map[string]any{"id": id, "kind": kind, "channel": channel, "recipient": to, "body": body, "status": st,
				"scheduled_at": at(scheduled), "created_at": at(created), "sent_at": stamp(sent), "delivered_at": stamp(delivered)})
		})
}
