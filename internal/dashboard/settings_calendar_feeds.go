package dashboard

// Settings › Calendar feeds: each professional's private feed link
// (docs/calendar-feeds.md), made and revoked by owners through the feeds
// area, audited without the link. A new link is shown in the response that
// made it and never again, like a new API key: only its digest is kept.

import (
	"net/http"
	"strconv"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/feeds"
)

type calendarFeedsView struct {
	Feeds []feeds.Feed
	// NewURL is the link made by this request, for NewFor: shown once.
	NewURL, NewFor string
}

func (calendarFeedsView) isPage() {}

// calendarFeedsPage handles "GET /app/settings/calendar-feeds".
func (d *Dashboard) calendarFeedsPage(w http.ResponseWriter, r *http.Request, s *session) error {
	return d.renderCalendarFeeds(w, r, s, calendarFeedsView{})
}

func (d *Dashboard) renderCalendarFeeds(w http.ResponseWriter, r *http.Request, s *session, v calendarFeedsView) error {
	list, err := feeds.List(r.Context(), d.db, s.Account)
	if err != nil {
		return err
	}
	v.Feeds = list
	d.render(w, r, s, http.StatusOK, "settings_calendar_feeds", "Calendar feeds", "settings-calendar-feeds", v)
	return nil
}

// makeCalendarFeed handles "POST /app/settings/calendar-feeds/{professional_id}":
// a new link, replacing the professional's live one. The link is rendered
// in this response only (no redirect).
func (d *Dashboard) makeCalendarFeed(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	var made feeds.Made
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		made, err = feeds.Make(r.Context(), tx, s.Account, id, d.clock.Now())
		if err != nil {
			return "", "", "", "", err
		}
		action := "created"
		if made.Replaced {
			action = "replaced"
		}
		return action, "calendar_feed", idString(id), "professional " + strconv.Quote(made.ProfessionalName), nil
	})
	if err != nil {
		return err
	}
	d.logger(r.Context()).Info("dashboard: calendar feed link made", "account_id", s.Account.ID, "user_id", s.UserID, "professional_id", id)
	return d.renderCalendarFeeds(w, r, s, calendarFeedsView{NewURL: d.publicBase(r) + feeds.Path(made.Token), NewFor: made.ProfessionalName})
}

// revokeCalendarFeed handles "POST /app/settings/calendar-feeds/{professional_id}/revoke":
// the link stops working at once. Revoking twice changes nothing and
// writes no second audit entry.
func (d *Dashboard) revokeCalendarFeed(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "professional_id")
	if err != nil {
		return err
	}
	var name string
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		var revoked bool
		name, revoked, err = feeds.Revoke(r.Context(), tx, s.Account, id)
		if err != nil || !revoked {
			return "", "", "", "", err
		}
		return "revoked", "calendar_feed", idString(id), "professional " + strconv.Quote(name), nil
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, Prefix+"settings/calendar-feeds", "ok", s.Translate("The feed link of %s no longer works.", name))
	return nil
}
