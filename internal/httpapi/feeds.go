package httpapi

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/frontdesk/frontdesk/internal/feeds"
	"github.com/frontdesk/frontdesk/internal/ics"
	"github.com/frontdesk/frontdesk/internal/ratelimit"
)

// defaultFeedLimit is the per-address limit on calendar feed reads
// (docs/calendar-feeds.md): calendar apps read a feed every hour or less
// often, so only a client guessing links comes near it.
var defaultFeedLimit = ratelimit.Limit{PerSecond: 10, Burst: 50}

// feedPrefix starts every feed's path (feeds.Path).
const feedPrefix = "/ics/"

// handleFeed handles "GET /ics/{feed_file}" ({token}.ics): a professional's
// private calendar feed (docs/calendar-feeds.md). No key: the link is the
// credential, so an unknown, revoked or malformed one is a bare 404, and
// every read takes one token from the client address's bucket.
func (s *Server) handleFeed(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	// A feed is one person's diary: never cached on the way, never indexed,
	// and its address never sent on as a referrer.
	h.Set("Cache-Control", "no-store")
	h.Set("X-Robots-Tag", "noindex")
	h.Set("Referrer-Policy", "no-referrer")
	if !s.limits.admitFeed(w, r) {
		return nil
	}
	token, ok := strings.CutSuffix(r.PathValue("feed_file"), ".ics")
	if !ok {
		return feeds.ErrUnknown
	}
	now := s.clock.Now()
	cal, err := feeds.Calendar(r.Context(), s.db, token, now)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := ics.Write(&buf, cal, now); err != nil {
		return err
	}
	h.Set("Content-Type", "text/calendar; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
	return nil
}

// admitFeed takes a token from the address's feed bucket; a refused read
// is answered here (429) and admitFeed reports false.
func (l *limits) admitFeed(w http.ResponseWriter, r *http.Request) bool {
	if l.off {
		return true
	}
	d := l.addrs.Allow("feed:"+addressBucket(r), l.feeds)
	if d.Allowed {
		return true
	}
	setRateHeaders(w.Header(), d)
	refuse(w, r, d, "Too many calendar feed reads from this address.")
	return false
}

// loggedPath is a request's path as the access log writes it: a feed's
// token is its credential, so it never reaches a log.
func loggedPath(path string) string {
	if strings.HasPrefix(path, feedPrefix) {
		return feedPrefix + "…"
	}
	return path
}
