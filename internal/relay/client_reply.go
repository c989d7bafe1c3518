package relay

// A team member's message to a patient from the patient's thread
// (docs/inbox.md): it joins the newest of the client's conversations whose
// channel still reaches them, or opens a conversation on the account's
// channel for team replies (its route, else the default channel), and then
// leaves as every team reply does (SendReply).

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// ReasonNoPhone refuses a message to a client without a phone number: a
// conversation meets its client by the phone.
const ReasonNoPhone = "no_phone"

// ClientReply is what a team member sends from a patient's thread.
type ClientReply struct {
	ClientID int64
	UserID   int64
	Body     string
	Nonce    string // as TeamReply.Nonce
}

// ClientRoute is where a message to a client goes: an existing
// conversation (SessionID), or a new one on Channel (SessionID 0).
type ClientRoute struct {
	SessionID int64
	Channel   channels.Channel
}

// RouteToClient decides where a message to one of the account's clients
// goes, or refuses (ReasonNoPhone, ReasonOptedOut, ReasonInactive,
// ReasonNoChannel, ReasonNoRecipient) when no channel reaches them. It
// reads only; every door that starts a message to a patient asks it.
func RouteToClient(ctx context.Context, q db.Querier, acct account.Account, clientID int64) (ClientRoute, error) {
	c, err := contact.GetClient(ctx, q, acct, clientID)
	if err != nil {
		return ClientRoute{}, err
	}
	if c.Phone.IsZero() {
		return ClientRoute{}, refuse(ReasonNoPhone, "The client has no phone number. Nothing was sent.")
	}
	convs, err := chat.ClientInbox(ctx, q, acct, clientID)
	if err != nil {
		return ClientRoute{}, err
	}
	reason := ""
	checked := map[string]string{} // channel key → refusal reason ("" reaches)
	reaches := func(key string) (channels.Channel, string, error) {
		ch, err := channels.ByKeyWithoutCredentials(ctx, q, acct, key)
		if err != nil {
			return ch, "", err
		}
		switch {
		case !ch.Active:
			return ch, ReasonInactive, nil
		case ch.Type == channels.TypeEmail && c.Email == "":
			return ch, ReasonNoRecipient, nil
		}
		opted, err := channels.OptedOut(ctx, q, acct, clientID, ch.ID)
		if err != nil || opted {
			return ch, ReasonOptedOut, err
		}
		return ch, "", nil
	}
	for _, cv := range convs {
		if cv.ChannelID == 0 {
			continue
		}
		why, seen := checked[cv.ChannelKey]
		if !seen {
			var ch channels.Channel
			if ch, why, err = reaches(cv.ChannelKey); err != nil {
				return ClientRoute{}, err
			}
			checked[cv.ChannelKey] = why
			if why == "" {
				return ClientRoute{SessionID: cv.SessionID, Channel: ch}, nil
			}
		}
		reason = why
	}
	settings, err := channels.LoadSettings(ctx, q, acct)
	if err != nil {
		return ClientRoute{}, err
	}
	if key := settings.ChannelFor(KindTeamReply); key != "" {
		if why, seen := checked[key]; seen {
			reason = why
		} else {
			ch, why, err := reaches(key)
			if err != nil && !errs.Is(err, errs.NotFound) { // a route to a channel since removed
				return ClientRoute{}, err
			}
			if err == nil && why == "" {
				return ClientRoute{Channel: ch}, nil
			}
			if why != "" {
				reason = why
			}
		}
	}
	switch reason {
	case ReasonOptedOut:
		return ClientRoute{}, refuse(ReasonOptedOut, "The client opted out of every channel that reaches them. Nothing was sent.")
	case ReasonInactive:
		return ClientRoute{}, refuse(ReasonInactive, "The client's channel is inactive. Nothing was sent.")
	case ReasonNoRecipient:
		return ClientRoute{}, refuse(ReasonNoRecipient, "The client has no e-mail address for the e-mail channel. Nothing was sent.")
	}
	return ClientRoute{}, refuse(ReasonNoChannel, "No messaging channel reaches the client. Nothing was sent.")
}

// SendToClient sends a team member's message to a client where
// RouteToClient says, opening the conversation first when the client has
// none that reaches them. A refusal stores nothing.
func SendToClient(ctx context.Context, store *db.DB, acct account.Account, r ClientReply, now time.Time) (ReplyResult, int64, error) {
	body := strings.TrimSpace(r.Body)
	if body == "" {
		return ReplyResult{}, 0, refuse(ReasonEmpty, "Write a message first.")
	}
	if n := utf8.RuneCountInString(body); n > chat.MaxReplyLength {
		return ReplyResult{}, 0, refuse(ReasonTooLong, "The message is %d characters long; the limit is %d.", n, chat.MaxReplyLength)
	}
	if nonce := strings.TrimSpace(r.Nonce); nonce == "" || len(nonce) > 100 {
		return ReplyResult{}, 0, refuse(ReasonNonce, "This form has no valid token. Reload the page and try again.")
	}
	route, err := RouteToClient(ctx, store, acct, r.ClientID)
	if err != nil {
		return ReplyResult{}, 0, err
	}
	if route.SessionID == 0 {
		c, err := contact.GetClient(ctx, store, acct, r.ClientID)
		if err != nil {
			return ReplyResult{}, 0, err
		}
		err = store.Transact(ctx, func(tx *db.Tx) error {
			route.SessionID, err = chat.OpenConversation(ctx, tx, acct, route.Channel.ID, c.Phone.E164(), c.Phone.National, now)
			return err
		})
		if err != nil {
			return ReplyResult{}, 0, err
		}
	}
	res, err := SendReply(ctx, store, acct, TeamReply{SessionID: route.SessionID, UserID: r.UserID, Body: body, Nonce: r.Nonce}, now)
	return res, route.SessionID, err
}
