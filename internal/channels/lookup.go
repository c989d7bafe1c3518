package channels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/frontdesk/frontdesk/internal/outbound"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNoLookup is Lookup's answer for a provider that cannot say whether it
// already has a message (Meta's WhatsApp Cloud API, SMTP, the log channel).
var ErrNoLookup = errors.New("channels: this provider cannot be asked whether it has a message")

// Lookup asks ch's provider whether it already has m, handed to it by an
// attempt that started at since and whose answer was lost (a crash
// mid-call). It returns what the provider has, oldest first (empty: it
// does not have it), or ErrNoLookup where the provider cannot tell. Any
// other error means nothing is known.
func (p *Providers) Lookup(ctx context.Context, ch Channel, m Outgoing, since time.Time) ([]Result, error) {
	switch ch.Provider {
	case ProviderTwilio:
		return lookupTwilio(ctx, p.client(), ch, m, since)
	}
	return nil, ErrNoLookup
}

// Lookup limits: a page as large as Twilio allows, and at most this many
// pages of one sender–recipient thread before giving up (answering an
// error, so the message waits rather than risk a second copy).
const (
	twilioPageSize = 1000
	twilioMaxPages = 20
	// lookupSlack is how much earlier than the attempt's start (by our
	// clock) Twilio's date_created may be and still be that attempt's
	// message: clock skew between us and Twilio. An identical text to the
	// same number created before that is another, earlier message.
	lookupSlack = 2 * time.Minute
)

// lookupTwilio reads the Messages list resource:
// GET {base}/2010-04-01/Accounts/{sid}/Messages.json?To=…&From=…&PageSize=1000,
// HTTP Basic sid:token, following next_page_uri; a message of ours is one
// with the same To, From and Body, direction outbound-*, and date_created
// no earlier than since (less lookupSlack).
//
// Why no DateSent filter: Twilio filters on date_sent, which a message only
// gets when Twilio hands it on to the carrier. One created seconds before
// the crash may still sit in Twilio's queue (status queued or accepted,
// date_sent null; a sender's queue can hold messages for hours), and a
// DateSent, DateSent> or DateSent< filter would not return it: we would
// send a second copy. To and From narrow the list to one patient's thread
// from this number, which is short, and date_created (set when Twilio
// accepted the request) is checked on our side.
func lookupTwilio(ctx context.Context, hc *http.Client, ch Channel, m Outgoing, since time.Time) ([]Result, error) {
	sid, token := ch.Credentials["account_sid"], ch.Credentials["auth_token"]
	base := strings.TrimRight(ch.APIBase, "/")
	if base == "" {
		base = DefaultTwilioBase
	}
	to, from := twilioAddress(ch, m.To), twilioAddress(ch, ch.From)
	q := url.Values{"To": {to}, "From": {from}, "PageSize": {strconv.Itoa(twilioPageSize)}}
	next := "/2010-04-01/Accounts/" + url.PathEscape(sid) + "/Messages.json?" + q.Encode()
	earliest := since.Add(-lookupSlack)
	type found struct {
		res     Result
		created time.Time
	}
	var out []found
	for page := 0; next != ""; page++ {
		if page == twilioMaxPages {
			return nil, &Error{Message: fmt.Sprintf("twilio: more than %d messages to %s from %s: cannot tell whether this one was sent", twilioPageSize*twilioMaxPages, to, from), Retryable: true}
		}
		// next_page_uri is a path on the API host; anything else is not
		// followed (the credentials go with the request).
		if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
			return nil, &Error{Message: "twilio: next_page_uri is not a path on the API host", Retryable: true}
		}
		var list twilioList
		if err := getTwilio(ctx, hc, base+next, sid, token, &list); err != nil {
			return nil, err
		}
		for _, msg := range list.Messages {
			if msg.To != to || msg.From != from || msg.Body != m.Body || !strings.HasPrefix(msg.Direction, "outbound") {
				continue
			}
			created, err := time.Parse(time.RFC1123Z, msg.DateCreated)
			if err != nil {
				return nil, &Error{Message: fmt.Sprintf("twilio: message %s: date_created %q is not RFC 2822", msg.SID, msg.DateCreated), Retryable: true}
			}
			if created.Before(earliest) {
				continue
			}
			res := Result{ProviderID: msg.SID}
			if ch.Type == TypeSMS {
				res.Segments = Segments(m.Body)
				if n, err := strconv.Atoi(msg.NumSegments); err == nil && n > 0 {
					res.Segments = n
				}
			}
			out = append(out, found{res, created})
		}
		next = list.NextPageURI
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].created.Before(out[j].created) })
	res := make([]Result, len(out))
	for i, f := range out {
		res[i] = f.res
	}
	return res, nil
}

// twilioList is a page of the Messages list resource.
type twilioList struct {
	Messages []struct {
		SID         string `json:"sid"`
		To          string `json:"to"`
		From        string `json:"from"`
		Body        string `json:"body"`
		Direction   string `json:"direction"`
		Status      string `json:"status"`
		NumSegments string `json:"num_segments"`
		DateCreated string `json:"date_created"`
		DateSent    string `json:"date_sent"` // "" (null) while queued
	} `json:"messages"`
	NextPageURI string `json:"next_page_uri"`
}

// getTwilio GETs a Twilio resource into v; errors are Twilio's {code,
// message} as an *Error, every one of them retryable (a lookup that failed
// is asked again later).
func getTwilio(ctx context.Context, hc *http.Client, endpoint, sid, token string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return &Error{Message: "twilio: " + err.Error()}
	}
	req.SetBasicAuth(sid, token)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		e := transportError("twilio", err)
		e.Retryable = true // a lookup that failed is asked again later
		return e
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code    json.Number `json:"code"`
			Message string      `json:"message"`
		}
		json.Unmarshal(body, &e)
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		return &Error{Status: resp.StatusCode, Code: e.Code.String(), Message: "twilio: listing messages: " + outbound.Cut(e.Message, outbound.MaxShown), Retryable: true}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &Error{Status: resp.StatusCode, Message: "twilio: listing messages: the answer is not JSON", Retryable: true}
	}
	return nil
}

// reachedProvider reports whether a failed request may have reached the
// provider: anything but a failure to connect (the request was written, or
// may have been, before the connection broke or the time ran out).
func reachedProvider(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	var dns *net.DNSError
	return !errors.As(err, &dns)
}
