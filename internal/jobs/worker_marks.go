package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/db"
)

// The two marks of a message's send attempt (send_attempt.go) are the
// Records nearly every Call commits: "started" right before the provider
// is called, "sent" right after it accepted the message. The recorder
// writes the marks of one group commit together, with one statement per
// account and kind (and one read of the opt-outs the starts must respect)
// instead of a statement or two per message.

// ErrOptedOut is Start's answer when the message's client opted out of the
// channel: the attempt does not start, and the message is suppressed.
var ErrOptedOut = errors.New("jobs: the client opted out of the channel")

// startMark is the Record of Start: the attempt on message id through
// channel started at at. It is not written, and the Sender stops, when the
// message left the pending state meanwhile (ErrNotOurs) or, when client is
// set, that client opted out of the channel (ErrOptedOut): the opt-out is
// read in the transaction that commits the start.
type startMark struct {
	acct    account.Account
	id      int64
	at      time.Time
	channel int64
	client  int64 // 0: no opt-out applies
}

// Write implements Record.
func (s startMark) Write(ctx context.Context, tx *db.Tx) error {
	failed, err := writeStarts(ctx, tx, s.acct, []startMark{s})
	if err != nil {
		return err
	}
	return failed[0]
}

// writeStarts writes the start marks of one account; failed holds each
// mark's own failure (ErrNotOurs, ErrOptedOut), by position.
func writeStarts(ctx context.Context, tx *db.Tx, acct account.Account, marks []startMark) (failed []error, err error) {
	failed = make([]error, len(marks))
	var pairs []channels.ClientChannel
	for _, m := range marks {
		if m.client != 0 {
			pairs = append(pairs, channels.ClientChannel{Client: m.client, Channel: m.channel})
		}
	}
	opted, err := channels.OptedOutOf(ctx, tx, acct, pairs)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, 0, len(marks))
	for i, m := range marks {
		if m.client != 0 && opted[channels.ClientChannel{Client: m.client, Channel: m.channel}] {
			failed[i] = ErrOptedOut
			continue
		}
		rows = append(rows, []any{m.id, db.Micros(m.at), db.Null(m.channel)})
	}
	ids, err := db.UpdateManyWhere(ctx, tx, acct.ID, "outbox", []string{"id", "at", "ch"}, []string{"BIGINT", "BIGINT", "BIGINT"},
		startSet, nil, pendingOnly, rows)
	if err != nil {
		return nil, err
	}
	marked := make(map[int64]bool, len(ids))
	for _, id := range ids {
		marked[id] = true
	}
	for i, m := range marks {
		if failed[i] == nil && !marked[m.id] {
			failed[i] = ErrNotOurs
		}
	}
	return failed, nil
}

// pendingOnly is the marks' guard: only a pending message changes. It is
// written as IS TRUE so that the planner never takes it for an index
// condition: with statistics older than the outbox's rows it otherwise chose
// the index on (account_id, created_at, kind, channel, status) and read every
// pending message of the account (5 ms instead of 0.1 for two marks); the
// rows are found by their ids in the primary key.
const pendingOnly = "(outbox.status = 'pending') IS TRUE"

// startSet is what a start mark changes.
const startSet = "send_started_at = v.at, channel_id = COALESCE(v.ch, outbox.channel_id)"

// sentMark is the Record of a provider's acceptance: message id is sent,
// with what the Sender reported. Only a pending message changes.
type sentMark struct {
	acctID int64
	id     int64
	d      SendResult
	at     time.Time
}

// Write implements Record.
func (s sentMark) Write(ctx context.Context, tx *db.Tx) error {
	return writeSents(ctx, tx, s.acctID, []sentMark{s})
}

// writeSents writes the sent marks of one account.
func writeSents(ctx context.Context, tx *db.Tx, acctID int64, marks []sentMark) error {
	_, err := db.UpdateManyWhere(ctx, tx, acctID, "outbox", sentColumns, sentTypes, sentSet, nil, pendingOnly, sentRows(marks))
	return err
}

// The values of a sent mark, and what it changes.
var (
	sentColumns = []string{"id", "at", "provider", "segs", "ckey", "ctype", "cid", "dup"}
	sentTypes   = []string{"BIGINT", "BIGINT", "TEXT", "BIGINT", "TEXT", "TEXT", "BIGINT", "BOOLEAN"}
)

const sentSet = `status = 'sent', attempts = attempts + 1, sent_at = v.at, error = NULL, provider_message_id = v.provider, segments = v.segs,
	channel_key = COALESCE(v.ckey, outbox.channel_key), channel = COALESCE(v.ctype, outbox.channel),
	channel_id = COALESCE(v.cid, outbox.channel_id), possible_duplicate = v.dup`

func sentRows(marks []sentMark) [][]any {
	rows := make([][]any, len(marks))
	for i, m := range marks {
		rows[i] = []any{m.id, db.Micros(m.at), db.Null(m.d.ProviderID), db.Null(int64(m.d.Segments)),
			db.Null(m.d.ChannelKey), db.Null(m.d.Channel), db.Null(m.d.ChannelID), m.d.PossibleDuplicate}
	}
	return rows
}

// writeRecords writes the Records of one group commit in tx: the marks
// together per account and kind (with together, per account: writeMarks),
// any other Record on its own. A mark that cannot be written fails alone
// (failed, by job); any other error is the transaction's.
func (w *Worker) writeRecords(ctx context.Context, tx *db.Tx, batch []queuedRecord, failed map[int64]error, together bool) error {
	type marks struct{ starts, sents []int } // positions in batch
	byAccount := map[int64]*marks{}
	var accounts []int64
	for i, q := range batch {
		_, start := q.rec.(startMark)
		_, sent := q.rec.(sentMark)
		if !start && !sent {
			if err := q.rec.Write(ctx, tx); err != nil {
				return err
			}
			continue
		}
		m := byAccount[q.acct]
		if m == nil {
			m = &marks{}
			byAccount[q.acct] = m
			accounts = append(accounts, q.acct)
		}
		if start {
			m.starts = append(m.starts, i)
		} else {
			m.sents = append(m.sents, i)
		}
	}
	for _, acct := range accounts {
		m := byAccount[acct]
		starts, sents := recordsAt[startMark](batch, m.starts), recordsAt[sentMark](batch, m.sents)
		var errs []error
		var err error
		switch {
		case together && len(starts) > 0:
			jobIDs := make([]int64, len(m.starts))
			for n, i := range m.starts {
				jobIDs[n] = batch[i].job
			}
			errs, err = w.writeMarks(ctx, tx, acct, starts, jobIDs, sents)
		case len(starts) > 0:
			if errs, err = writeStarts(ctx, tx, starts[0].acct, starts); err == nil && len(sents) > 0 {
				err = writeSents(ctx, tx, acct, sents)
			}
		case len(sents) > 0:
			err = writeSents(ctx, tx, acct, sents)
		}
		if err != nil {
			return err
		}
		for n, i := range m.starts {
			if errs[n] != nil {
				failed[batch[i].job] = errs[n]
			}
		}
	}
	return nil
}

// recordsAt returns the Records of batch at positions idx, all of type T.
func recordsAt[T Record](batch []queuedRecord, idx []int) []T {
	out := make([]T, len(idx))
	for n, i := range idx {
		out[n] = batch[i].rec.(T)
	}
	return out
}
