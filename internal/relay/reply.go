package relay

// A team member's reply from the inbox: it joins the conversation at once
// as the member's message and goes to the client through the conversation's
// channel by the outbox, like every other message Frontdesk sends.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/idempotency"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/phone"
)

// KindTeamReply is the outbox kind of a team member's reply. Like any
// conversational message it goes at once (quiet hours hold only
// marketing-like kinds), and an opt-out suppresses it.
const KindTeamReply = "team_reply"

// SourceChatMessage is the outbox source of a team reply: its id is the
// conversation message already recorded, which delivery completes instead
// of recording the text a second time.
const SourceChatMessage = "chat_message"

// Refusal reasons of SendReply (the details' "reason"), so a front door can
// word them in its own language.
const (
	ReasonNoChannel      = "no_channel"
	ReasonInactive       = "channel_inactive"
	ReasonOptedOut       = "opted_out"
	ReasonNoRecipient    = "no_recipient"
	ReasonEmpty          = "empty"
	ReasonTooLong        = "too_long"
	ReasonNonce          = "nonce"
	ReasonAlreadyRunning = "in_progress"
)

// TeamReply is what a team member sends from a conversation.
type TeamReply struct {
	SessionID int64
	UserID    int64
	Body      string
	// Nonce is the form's one-time token: a second request with it (a
	// double-submitted form, a browser's retry) sends nothing more.
	Nonce string
}

// ReplyResult is what became of a reply.
type ReplyResult struct {
	MessageID int64
	// Repeat is true when the nonce was already used: nothing was sent
	// this time, and MessageID is the first request's message.
	Repeat bool
}

func refuse(reason, format string, args ...any) error {
	return errs.WithDetails(errs.ValidationError, map[string]any{"reason": reason}, format, args...)
}

// ReplyReason is the reason a SendReply refusal names ("" for other errors).
func ReplyReason(err error) string {
	var e *errs.Error
	if !errors.As(err, &e) {
		return ""
	}
	if d, ok := e.Details.(map[string]any); ok {
		r, _ := d["reason"].(string)
		return r
	}
	return ""
}

// SendReply records a team member's message in one of the account's
// conversations and queues its delivery through the conversation's
// channel, in one transaction. A conversation without a channel, on an
// inactive channel, or whose client opted out of that channel is refused
// and nothing is stored. A nonce already used returns the first result.
func SendReply(ctx context.Context, store *db.DB, acct account.Account, r TeamReply, now time.Time) (ReplyResult, error) {
	// Another account's conversation is unknown, whatever the form holds.
	if _, err := chat.Get(ctx, store, acct, r.SessionID, chat.View{}); err != nil {
		return ReplyResult{}, err
	}
	body := strings.TrimSpace(r.Body)
	if body == "" {
		return ReplyResult{}, refuse(ReasonEmpty, "Write a message first.")
	}
	if n := utf8.RuneCountInString(body); n > chat.MaxReplyLength {
		return ReplyResult{}, refuse(ReasonTooLong, "The message is %d characters long; the limit is %d.", n, chat.MaxReplyLength)
	}
	nonce := strings.TrimSpace(r.Nonce)
	if nonce == "" || len(nonce) > 100 {
		return ReplyResult{}, refuse(ReasonNonce, "This form has no valid token. Reload the page and try again.")
	}
	route := "dashboard reply " + strconv.FormatInt(r.SessionID, 10)
	sum := sha256.Sum256([]byte(body))
	kept, err := idempotency.Claim(ctx, store, acct, nonce, route, hex.EncodeToString(sum[:]), now)
	if errs.Is(err, errs.IdempotencyBusy) || errs.Is(err, errs.IdempotencyReused) {
		return ReplyResult{}, refuse(ReasonAlreadyRunning, "This reply was already sent from this form.")
	}
	if err != nil {
		return ReplyResult{}, err
	}
	if kept != nil {
		id, _ := strconv.ParseInt(string(kept.Body), 10, 64)
		return ReplyResult{MessageID: id, Repeat: true}, nil
	}
	var out ReplyResult
	err = store.Transact(ctx, func(tx *db.Tx) error {
		conv, err := chat.InboxConversation(ctx, tx, acct, r.SessionID)
		if err != nil {
			return err
		}
		if conv.ChannelID == 0 {
			return refuse(ReasonNoChannel, "This conversation did not come through a messaging channel, so there is no way to reach the client from it. Nothing was sent.")
		}
		ch, err := channels.ByKeyWithoutCredentials(ctx, tx, acct, conv.ChannelKey)
		if err != nil {
			return err
		}
		if !ch.Active {
			return refuse(ReasonInactive, "Channel %q is inactive. Nothing was sent.", ch.Key)
		}
		var clientID *int64
		email := ""
		if conv.Client != nil {
			id := conv.Client.ID
			clientID = &id
			if conv.Client.Email != nil {
				email = *conv.Client.Email
			}
			opted, err := channels.OptedOut(ctx, tx, acct, id, ch.ID)
			if err != nil {
				return err
			}
			if opted {
				return refuse(ReasonOptedOut, "The client opted out of channel %q (they replied STOP). Nothing was sent.", ch.Key)
			}
		}
		to := conv.CustomerPhoneNumber
		if n, err := phone.ParseWithRegion(to, ""); err == nil {
			to = n.E164()
		}
		if ch.Type == channels.TypeEmail && email == "" {
			return refuse(ReasonNoRecipient, "The client has no e-mail address for channel %q. Nothing was sent.", ch.Key)
		}
		if strings.TrimSpace(to) == "" {
			return refuse(ReasonNoRecipient, "The conversation has no phone number to reply to. Nothing was sent.")
		}
		id, err := chat.AppendUserMessage(ctx, tx, acct, r.SessionID, r.UserID, body, now)
		if err != nil {
			return err
		}
		out.MessageID = id
		key := ch.Key
		return jobs.QueueMessage(ctx, tx, acct, now, jobs.Message{Kind: KindTeamReply, Channel: ch.Type, Recipient: to, ClientID: clientID,
			Body: body, ChannelKey: &key, Source: jobs.MessageSource{Type: SourceChatMessage, ID: &id}}, now, nil)
	})
	if err != nil {
		if rerr := idempotency.Release(ctx, store, acct, nonce, route); rerr != nil {
			return ReplyResult{}, rerr
		}
		return ReplyResult{}, err
	}
	if err := idempotency.Keep(ctx, store, acct, nonce, route, idempotency.Response{Status: 200, ContentType: "text/plain",
		Body: []byte(strconv.FormatInt(out.MessageID, 10))}); err != nil {
		return ReplyResult{}, err
	}
	return out, nil
}

// recordTeamReply completes a delivered team reply: the conversation
// already holds its message, which now learns the provider's id.
func recordTeamReply(ctx context.Context, tx *db.Tx, acct account.Account, m jobs.Message) error {
	if m.Source.Type != SourceChatMessage || m.Source.ID == nil || m.ChannelID == nil {
		return nil
	}
	provider := ""
	if m.ProviderMessageID != nil {
		provider = *m.ProviderMessageID
	}
	return chat.AttachProviderID(ctx, tx, acct, *m.Source.ID, *m.ChannelID, provider)
}

// ReplyDelivery is where a team reply's outbox message stands.
type ReplyDelivery struct {
	Status string // the outbox status: pending, sent, delivered, read, failed, suppressed, …
	Error  string // why it failed or was suppressed
}

// ReplyDeliveries returns the delivery of the team replies among
// messageIDs (messages of the account), by message id, in one query.
func ReplyDeliveries(ctx context.Context, q db.Querier, acct account.Account, messageIDs []int64) (map[int64]ReplyDelivery, error) {
	out := map[int64]ReplyDelivery{}
	if len(messageIDs) == 0 {
		return out, nil
	}
	in, args := db.In(messageIDs)
	rows, err := q.Query(ctx, `SELECT source_id, status, COALESCE(error, '') FROM outbox
		WHERE account_id = ? AND kind = ? AND source_type = ? AND source_id IN `+in,
		append([]any{acct.ID, KindTeamReply, SourceChatMessage}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id int64
			d  ReplyDelivery
		)
		if err := rows.Scan(&id, &d.Status, &d.Error); err != nil {
			return nil, err
		}
		out[id] = d
	}
	return out, rows.Err()
}
