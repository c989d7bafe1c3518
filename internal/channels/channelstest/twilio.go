package channelstest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/frontdesk/frontdesk/internal/channels"
)

// Twilio answers the Messages resource as Twilio documents it, at
// /2010-04-01/Accounts/{sid}/Messages.json with HTTP Basic sid:token (401
// code 20003 otherwise):
//
//   - POST creates a message: form To, From and Body required (400 code
//     21604 / 21603 / 21602), a To that is not E.164 is 400 code 21211, and
//     201 with the Message resource. Numbers from the magic table make it
//     answer 429 (code 20429) or 500.
//   - GET lists them, newest first: filters To, From and DateSent (also
//     DateSent< and DateSent>, dates YYYY-MM-DD in UTC, matched against
//     date_sent, so a message still queued never matches), PageSize (default
//     50, at most 1000) and PageToken, with next_page_uri for the next page.
//
// A message is queued, without date_sent, for QueuedFor after it was
// created, then sent.
type Twilio struct {
	SID, Token string
	// Delay, when set, is how long every request takes (a real provider
	// answers in tens of milliseconds), so that senders working side by
	// side overlap. A request whose client went away meanwhile still
	// counts, as it would at Twilio.
	Delay time.Duration
	// QueuedFor is how long a new message stays queued (date_sent null).
	QueuedFor time.Duration
	// ListStatus, when set, is the status every GET answers (an outage).
	ListStatus int
	mu         sync.Mutex
	got        []url.Values
	accepted   []TwilioMessage
	lists      int
	load       InFlight
}

// TwilioMessage is a message the fake Twilio accepted: the form it got, the
// sid it answered with and when it created it.
type TwilioMessage struct {
	SID     string
	Form    url.Values
	Created time.Time
}

var e164 = regexp.MustCompile(`^(whatsapp:)?\+[1-9]\d{6,14}$`)

func (f *Twilio) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer f.load.Enter()()
	// The request is read whole first: a sender that dies while the
	// provider works on its request has still sent it.
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if f.Delay > 0 {
		time.Sleep(f.Delay)
	}
	if r.URL.Path != "/2010-04-01/Accounts/"+f.SID+"/Messages.json" || (r.Method != http.MethodPost && r.Method != http.MethodGet) {
		twilioFail(w, 404, 20404, "The requested resource was not found")
		return
	}
	if u, p, ok := r.BasicAuth(); !ok || u != f.SID || p != f.Token {
		twilioFail(w, 401, 20003, "Authenticate")
		return
	}
	if r.Method == http.MethodGet {
		f.list(w, r)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		twilioFail(w, 400, 20001, "Content-Type must be form encoded")
		return
	}
	if err := r.ParseForm(); err != nil {
		twilioFail(w, 400, 20001, "malformed form")
		return
	}
	to, from, body := r.PostForm.Get("To"), r.PostForm.Get("From"), r.PostForm.Get("Body")
	switch {
	case to == "":
		twilioFail(w, 400, 21604, "A 'To' phone number is required.")
		return
	case from == "":
		twilioFail(w, 400, 21603, "A 'From' phone number is required.")
		return
	case body == "":
		twilioFail(w, 400, 21602, "Message body is required.")
		return
	case !e164.MatchString(to):
		twilioFail(w, 400, 21211, "The 'To' number "+to+" is not a valid phone number.")
		return
	case strings.HasSuffix(to, "4290"):
		twilioFail(w, 429, 20429, "Too Many Requests")
		return
	case strings.HasSuffix(to, "5000"):
		twilioFail(w, 500, 20500, "Internal Server Error")
		return
	}
	var b [16]byte
	rand.Read(b[:])
	m := TwilioMessage{SID: "SM" + hex.EncodeToString(b[:]), Form: r.PostForm, Created: time.Now().UTC()}
	f.mu.Lock()
	f.got = append(f.got, r.PostForm)
	f.accepted = append(f.accepted, m)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(f.resource(m, time.Now()))
}

func twilioFail(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg,
		"more_info": "https://www.twilio.com/docs/errors/" + itoa(code), "status": status})
}

// resource is m as the API shows it at now: dates in RFC 2822.
func (f *Twilio) resource(m TwilioMessage, now time.Time) map[string]any {
	status, sent := "queued", any(nil)
	if at := m.Created.Add(f.QueuedFor); !now.Before(at) {
		status, sent = "sent", at.Format(time.RFC1123Z)
	}
	body := m.Form.Get("Body")
	return map[string]any{"sid": m.SID, "account_sid": f.SID, "to": m.Form.Get("To"), "from": m.Form.Get("From"), "body": body,
		"status": status, "num_segments": itoa(channels.Segments(body)), "direction": "outbound-api",
		"date_created": m.Created.Format(time.RFC1123Z), "date_updated": m.Created.Format(time.RFC1123Z), "date_sent": sent}
}

// list answers GET Messages.json.
func (f *Twilio) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.lists++
	all := append([]TwilioMessage(nil), f.accepted...)
	f.mu.Unlock()
	if f.ListStatus != 0 {
		twilioFail(w, f.ListStatus, 20500, "Service unavailable")
		return
	}
	q := r.URL.Query()
	size := 50
	if v := q.Get("PageSize"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			twilioFail(w, 400, 20001, "PageSize must be 1..1000")
			return
		}
		size = n
	}
	day := func(name string) (time.Time, bool, bool) {
		v := q.Get(name)
		if v == "" {
			return time.Time{}, false, true
		}
		t, err := time.Parse("2006-01-02", v)
		return t, true, err == nil
	}
	on, hasOn, ok1 := day("DateSent")
	after, hasAfter, ok2 := day("DateSent>")
	before, hasBefore, ok3 := day("DateSent<")
	if !ok1 || !ok2 || !ok3 {
		twilioFail(w, 400, 20001, "DateSent must be a date YYYY-MM-DD")
		return
	}
	now := time.Now()
	var match []map[string]any
	sort.SliceStable(all, func(i, j int) bool { return all[i].Created.After(all[j].Created) })
	for _, m := range all {
		if v := q.Get("To"); v != "" && m.Form.Get("To") != v {
			continue
		}
		if v := q.Get("From"); v != "" && m.Form.Get("From") != v {
			continue
		}
		res := f.resource(m, now)
		if hasOn || hasAfter || hasBefore {
			s, _ := res["date_sent"].(string)
			if s == "" {
				continue
			}
			sent, _ := time.Parse(time.RFC1123Z, s)
			d := time.Date(sent.Year(), sent.Month(), sent.Day(), 0, 0, 0, 0, time.UTC)
			if (hasOn && !d.Equal(on)) || (hasAfter && d.Before(after)) || (hasBefore && d.After(before)) {
				continue
			}
		}
		match = append(match, res)
	}
	page, _ := strconv.Atoi(strings.TrimPrefix(q.Get("PageToken"), "PA"))
	from := min(page*size, len(match))
	to := min(from+size, len(match))
	self := r.URL.Path + "?" + q.Encode()
	var next any
	if to < len(match) {
		nq := url.Values{}
		for k, v := range q {
			nq[k] = v
		}
		nq.Set("Page", strconv.Itoa(page+1))
		nq.Set("PageToken", "PA"+strconv.Itoa(page+1))
		next = r.URL.Path + "?" + nq.Encode()
	}
	msgs := match[from:to]
	if msgs == nil {
		msgs = []map[string]any{}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"messages": msgs, "page": page, "page_size": size, "start": from, "end": max(to-1, from),
		"uri": self, "first_page_uri": r.URL.Path + "?PageSize=" + strconv.Itoa(size), "next_page_uri": next, "previous_page_uri": nil})
}

// Seed adds messages the account sent before (another application, an
// earlier day), as if created at m.Created.
func (f *Twilio) Seed(ms ...TwilioMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range ms {
		if m.SID == "" {
			var b [16]byte
			rand.Read(b[:])
			m.SID = "SM" + hex.EncodeToString(b[:])
		}
		f.accepted = append(f.accepted, m)
	}
}

// Sent returns the forms of the messages accepted so far (not the seeded).
func (f *Twilio) Sent() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.got...)
}

// Accepted returns the messages accepted (or seeded) so far with their sids.
func (f *Twilio) Accepted() []TwilioMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]TwilioMessage(nil), f.accepted...)
}

// Lists counts the GET requests on the Messages list.
func (f *Twilio) Lists() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists
}

// PeakInFlight is the most requests the fake was answering at once.
func (f *Twilio) PeakInFlight() int { return f.load.Peak() }
