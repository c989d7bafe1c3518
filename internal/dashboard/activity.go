package dashboard

import (
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/channels"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jobs"
	"github.com/frontdesk/frontdesk/internal/relay"
)

// maxChannelKeyLen caps the activity page's channel filter (characters).
const maxChannelKeyLen = 100

// activityKinds are the outbox kinds the activity page filters by.
var activityKinds = func() []string {
	k := []string{jobs.MsgAutomation, jobs.MsgSequence, jobs.MsgWebhook, jobs.MsgConfirmation, jobs.MsgReminder, jobs.MsgSeatOffer, jobs.MsgVerificationCode, relay.KindReply, relay.KindTeamReply}
	sort.Strings(k)
	return k
}()

// activityView is the activity page: the outbox's messages and the
// filters.
type activityView struct {
	List     []jobs.Message
	Filter   jobs.OutboxFilter
	Filtered bool
	Kinds    []string
	Statuses []string
	Channels []string
	// Source says what queued a message in the reader's language.
	Source func(string) string
}

// outboxSource says what queued a message (its source type) in lang: a
// webhook's event by its name, anything else as a stored value.
func outboxSource(lang, typ string) string {
	if event, ok := strings.CutPrefix(typ, "event:"); ok {
		return translate(lang, "event %s", event)
	}
	return valueIn(lang, typ)
}

func (activityView) isPage() {}

// activityPage handles "GET /app/activity?kind=&status=&channel=": the
// outbox, newest first, with each message's delivery (status, channel,
// provider id, error, attempts, segments, delivered time).
//
// Kind and status are closed vocabularies: an unknown value is a 400 naming
// the allowed ones, since it can only come from a mistyped address. The
// channel is open (messages keep the key of a channel since removed from the
// workspace), so an unknown key simply matches nothing.
func (d *Dashboard) activityPage(w http.ResponseWriter, r *http.Request, s *session) error {
	q := r.URL.Query()
	f := jobs.OutboxFilter{Kind: q.Get("kind"), Status: q.Get("status"), ChannelKey: strings.TrimSpace(q.Get("channel"))}
	if f.Kind != "" && !contains(activityKinds, f.Kind) {
		return errs.New(errs.ValidationError, "Unknown kind %q: choose one of %s.", f.Kind, strings.Join(activityKinds, ", "))
	}
	if f.Status != "" && !contains(jobs.OutboxStatuses, f.Status) {
		return errs.New(errs.ValidationError, "Unknown status %q: choose one of %s.", f.Status, strings.Join(jobs.OutboxStatuses, ", "))
	}
	if utf8.RuneCountInString(f.ChannelKey) > maxChannelKeyLen {
		return errs.New(errs.ValidationError, "A channel key may have at most %d characters.", maxChannelKeyLen)
	}
	list, err := jobs.ListOutboxFiltered(r.Context(), d.db, s.Account, f, 200)
	if err != nil {
		return err
	}
	chans, err := channels.List(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(chans)+1)
	for _, ch := range chans {
		keys = append(keys, ch.Key)
	}
	if f.ChannelKey != "" && !contains(keys, f.ChannelKey) {
		keys = append(keys, f.ChannelKey) // keep the choice shown
	}
	d.render(w, r, s, http.StatusOK, "activity", "Activity", "activity", activityView{
		List: list, Filter: f, Filtered: f != jobs.OutboxFilter{},
		Kinds: activityKinds, Statuses: jobs.OutboxStatuses, Channels: keys,
		Source: func(typ string) string { return outboxSource(s.Lang, typ) },
	})
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
