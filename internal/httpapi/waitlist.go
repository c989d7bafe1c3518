package httpapi

import (
	"net/http"
	"strings"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/phone"
	"github.com/frontdesk/frontdesk/internal/valid"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// handleWaitlistAdd handles "POST /api/v2/public/calendar/waitlist/entries".
func (s *Server) handleWaitlistAdd(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	o := rep.Object(body, "model_type", "body")
	var req waitlist.AddRequest
	if id, ok := o.Int("client_id"); ok {
		req.ClientID = &id
	}
	req.Phone, _ = o.Str("phone", waitlist.MaxPhoneLen)
	req.Phone = strings.TrimSpace(req.Phone)
	req.FirstName, _ = o.Str("first_name", waitlist.MaxNameLen)
	req.LastName, _ = o.Str("last_name", waitlist.MaxNameLen)
	req.Email, _ = o.Str("email", waitlist.MaxEmailLen)
	if id, ok := o.Int("waitlist_id"); ok {
		req.WaitlistID = &id
	}
	req.ServiceIDs, _ = o.Ints("service_ids", 0, waitlist.MaxServices)
	req.ServiceNames, _ = o.Strings("service_names", 0, waitlist.MaxServices, waitlist.MaxServiceNameLen)
	req.Prefs = waitlist.ReadPrefs(o)
	if o.Valid() {
		// A blank phone is no phone; a phone of the wrong type is already
		// reported as such.
		if _, sent := o.Raw("client_id"); !sent && req.Phone == "" && !reported(rep, "phone") {
			rep.Add([]any{"body", "phone"}, "missing", "Field required")
		}
		if len(req.ServiceIDs) == 0 && len(req.ServiceNames) == 0 && !reported(rep, "service_ids") && !reported(rep, "service_names") {
			rep.Add([]any{"body", "service_ids"}, "missing", "Field required")
		}
	}
	if err := rep.Err(); err != nil {
		return err
	}
	res, err := waitlist.Add(r.Context(), s.db, accountFrom(r.Context()), req, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": res})
	return nil
}

// reported reports a problem already recorded at ['body', field, ...].
func reported(rep *valid.Report, field string) bool {
	for _, p := range rep.Problems {
		if len(p.Loc) > 1 && p.Loc[1] == field {
			return true
		}
	}
	return false
}

// handleWaitlistBatch handles "POST /api/v2/public/calendar/waitlist/entries/batch".
// Only the envelope is a 422; every problem inside a row is that row's error.
func (s *Server) handleWaitlistBatch(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	o := rep.Object(body, "model_type", "body")
	o.Require("waitlist_id", "entries")
	listID, _ := o.Int("waitlist_id")
	rawRows, _ := o.List("entries", 1, waitlist.MaxBatchRows)
	region, _ := o.Str("default_region", 0)
	skipInvalid, _ := o.Bool("skip_invalid")
	existingOnly, _ := o.Bool("existing_clients_only")
	rows := make([]map[string]any, len(rawRows))
	for i, raw := range rawRows {
		m, ok := raw.(map[string]any)
		if !ok {
			rep.Add([]any{"body", "entries", i}, "model_type", "Input should be a valid dictionary or object to extract fields from")
			continue
		}
		rows[i] = m
	}
	if err := rep.Err(); err != nil {
		return err
	}
	acct := accountFrom(r.Context())
	// An unknown default_region is a business-rule refusal of the whole
	// request (400 VALIDATION_ERROR), not a row problem: it would fail every
	// national number of the batch.
	if strings.TrimSpace(region) != "" && !phone.ValidRegion(region) {
		return errs.WithDetails(errs.ValidationError, map[string]any{"field": "default_region"},
			"default_region %q is not an ISO 3166 alpha-2 region such as ES.", region)
	}
	if strings.TrimSpace(region) == "" {
		region = acct.DefaultRegion
	}
	req := waitlist.BatchRequest{WaitlistID: listID, SkipInvalid: skipInvalid, ExistingClientsOnly: existingOnly,
		Rows: make([]waitlist.Row, len(rows))}
	for i, m := range rows {
		req.Rows[i] = waitlist.ParseRow(i, m, region)
	}
	res, err := waitlist.ImportBatch(r.Context(), s.db, acct, req, s.clock.Now())
	if res != nil {
		s.metrics.batchRows("waitlist_batch", len(req.Rows), res.Summary.Map())
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": res})
	return nil
}

// handleWaitlistRemoveMany handles "POST /api/v2/public/calendar/waitlist/entries/remove".
func (s *Server) handleWaitlistRemoveMany(w http.ResponseWriter, r *http.Request) error {
	body, err := readJSON(w, r, false)
	if err != nil {
		return err
	}
	rep := &valid.Report{}
	o := rep.Object(body, "model_type", "body")
	o.Require("entry_ids")
	ids, _ := o.Ints("entry_ids", 1, waitlist.MaxBatchRows)
	reason, _ := o.Str("reason", waitlist.MaxReasonLen)
	if err := rep.Err(); err != nil {
		return err
	}
	res, err := waitlist.RemoveMany(r.Context(), s.db, accountFrom(r.Context()), ids, reason, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// handleWaitlistList handles "GET /api/v2/public/calendar/waitlist/entries".
func (s *Server) handleWaitlistList(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	q := rep.Query(r.URL.Query())
	var f waitlist.Filter
	f.WaitlistID, _ = q.Int("waitlist_id", 1, 1<<62)
	f.ServiceID, _ = q.Int("service_id", 1, 1<<62)
	f.ClientID, _ = q.Int("client_id", 1, 1<<62)
	f.Status, _ = q.Enum("status", append([]string{"open", "resolved", "all"}, waitlist.Statuses...)...)
	if p, ok := q.Int("priority", 0, 3); ok {
		v := int(p)
		f.Priority = &v
	}
	f.Limit, f.Offset = pageQuery(q, waitlist.DefaultLimit, waitlist.MaxLimit)
	if err := rep.Err(); err != nil {
		return err
	}
	list, count, err := waitlist.ListEntries(r.Context(), s.db, accountFrom(r.Context()), f, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": list, "count": count, "limit": f.Limit, "offset": f.Offset})
	return nil
}

// handleWaitlistGet handles "GET /api/v2/public/calendar/waitlist/entries/{entry_id}".
func (s *Server) handleWaitlistGet(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := rep.PathInt("entry_id", r.PathValue("entry_id"))
	if err := rep.Err(); err != nil {
		return err
	}
	e, err := waitlist.Get(r.Context(), s.db, accountFrom(r.Context()), id, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": e})
	return nil
}

// handleWaitlistRemove handles "DELETE /api/v2/public/calendar/waitlist/entries/{entry_id}",
// with an optional body {reason}.
func (s *Server) handleWaitlistRemove(w http.ResponseWriter, r *http.Request) error {
	rep := &valid.Report{}
	id := rep.PathInt("entry_id", r.PathValue("entry_id"))
	body, err := readJSON(w, r, true)
	if err != nil {
		return err
	}
	var reason string
	if body != nil {
		o := rep.Object(body, "model_type", "body")
		reason, _ = o.Str("reason", waitlist.MaxReasonLen)
	}
	if err := rep.Err(); err != nil {
		return err
	}
	e, err := waitlist.Remove(r.Context(), s.db, accountFrom(r.Context()), id, reason, s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": e})
	return nil
}

// handleWaitlistSummary handles "GET /api/v2/public/calendar/waitlist/summary".
func (s *Server) handleWaitlistSummary(w http.ResponseWriter, r *http.Request) error {
	res, err := waitlist.Summarize(r.Context(), s.db, accountFrom(r.Context()), s.clock.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "data": res})
	return nil
}
