package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/frontdesk/frontdesk/internal/httpapi"
)

const (
	public    = "/api/v2/public"
	inputNode = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01" // workspace.yaml's web node
)

// runner sends the measured requests through the real handler, in process
// (httptest recorder, no network).
type runner struct {
	*fixture
	srv *httpapi.Server
	// next is the next fresh national number for measured rows.
	next int
}

// fresh returns n national numbers no client has.
func (r *runner) fresh(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%09d", r.next)
		r.next++
	}
	return out
}

// do sends one request and returns its duration and decoded body; any other
// status than 200 is an error.
func (r *runner) do(method, path string, body []byte) (time.Duration, map[string]any, error) {
	start := time.Now()
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, path, nil)
	if rd != nil {
		req = httptest.NewRequest(method, path, rd)
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+Key)
	rec := httptest.NewRecorder()
	r.srv.ServeHTTP(rec, req)
	took := time.Since(start)
	if rec.Code != 200 {
		return took, nil, fmt.Errorf("%s %s: status %d: %.500s", method, path, rec.Code, rec.Body.String())
	}
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		return took, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return took, out, nil
}

// ingestBody is a batch for the bench input node: one row per national
// number, rows whose index is in failing sent with a phone too short to be
// one. Automations are off: the measured work is matching, merging and
// placing (the raw floor fires none either).
func ingestBody(nationals []string, failing func(i int) bool) []byte {
	rows := make([]map[string]any, len(nationals))
	for i, nat := range nationals {
		rows[i] = map[string]any{"external_id": fmt.Sprint(i), "phone_number": "+34" + nat,
			"first_name": "Cliente", "last_name": nat, "email": "c" + nat + "@example.com",
			"data": map[string]any{"source": "bench"}}
		if failing != nil && failing(i) {
			rows[i]["phone_number"] = "12"
		}
	}
	data, _ := json.Marshal(map[string]any{"clients": rows, "trigger_automations": false})
	return data
}

// waitlistBody is a waiting-list batch of new clients over the list's four
// services.
func (r *runner) waitlistBody(nationals []string) []byte {
	services := []int64{r.ids.Services["cleaning"], r.ids.Services["checkup"], r.ids.Services["ortho"], r.ids.Services["physio"]}
	rows := make([]any, len(nationals))
	for i, nat := range nationals {
		rows[i] = map[string]any{"phone": "+34" + nat, "first_name": "Paciente", "last_name": nat,
			"email": "p" + nat + "@example.com", "service_ids": []int64{services[i%len(services)]}, "priority": i % 4,
			"time_preference": "morning", "notes": "from the old system"}
	}
	data, _ := json.Marshal(map[string]any{"waitlist_id": r.ids.Waitlists["main"], "entries": rows})
	return data
}

// summaryIs checks an ingest response's summary counts.
func summaryIs(body map[string]any, want map[string]int) error {
	sum, _ := body["summary"].(map[string]any)
	for k, v := range want {
		if got, _ := sum[k].(float64); int(got) != v {
			return fmt.Errorf("summary %s = %v, want %d (summary %v)", k, sum[k], v, sum)
		}
	}
	return nil
}

// existing picks n clients that exist: bulk-loaded ones spread over the
// whole range (skipping the first skip picks) when there are enough of them,
// else n new clients created through the API.
func (r *runner) existing(n, skip int) ([]string, error) {
	const picks = 750 // the update set and the mixed set together
	if r.bulk >= 2*picks {
		step := r.bulk / picks
		out := make([]string, n)
		for i := range out {
			out[i] = bulkNational((skip + i) * step)
		}
		return out, nil
	}
	nats := r.fresh(n)
	_, _, err := r.do("POST", public+"/leadflow/ingest/"+inputNode+"/batch", ingestBody(nats, nil))
	return nats, err
}

// clientLevel fills the store up to size clients and measures every
// client-side figure there.
func (r *runner) clientLevel(ctx context.Context, size, iterations int, logf func(string, ...any)) (Level, error) {
	lv := Level{Stated: size, Stats: map[string]Stat{}}
	have, err := r.countClients(ctx)
	if err != nil {
		return lv, err
	}
	if have < size {
		logf("%d clients: bulk-loading %d clients (one in ten with a card)", size, size-have)
		start := time.Now()
		if err := r.loadClients(ctx, size-have); err != nil {
			return lv, err
		}
		lv.Loaded, lv.LoadTime = size-have, time.Since(start)
		logf("%d clients: loaded in %s (%.0f clients/s)", size, lv.LoadTime.Round(time.Millisecond), float64(lv.Loaded)/lv.LoadTime.Seconds())
	}

	// The clients the update and mixed batches find, placed once untimed so
	// every timed batch does the same work.
	updateSet, err := r.existing(500, 0)
	if err != nil {
		return lv, err
	}
	mixedSet, err := r.existing(250, 500)
	if err != nil {
		return lv, err
	}
	updateBody := ingestBody(updateSet, nil)
	for _, body := range [][]byte{updateBody, ingestBody(mixedSet, nil)} {
		if _, _, err := r.do("POST", public+"/leadflow/ingest/"+inputNode+"/batch", body); err != nil {
			return lv, err
		}
	}
	watermark, err := r.maxClientID(ctx)
	if err != nil {
		return lv, err
	}
	if lv.Stored, err = r.countClients(ctx); err != nil {
		return lv, err
	}

	times := map[string][]time.Duration{}
	ingest := public + "/leadflow/ingest/" + inputNode + "/batch"
	for round := 0; round <= iterations; round++ {
		record := func(name string, d time.Duration) {
			if round > 0 { // round 0 warms caches and plans
				times[name] = append(times[name], d)
			}
		}
		// raw floor
		nats := r.fresh(500)
		start := time.Now()
		if err := r.rawFloor(ctx, nats); err != nil {
			return lv, fmt.Errorf("raw floor: %w", err)
		}
		record(mFloor, time.Since(start))

		// the limits floor: new contacts, then the stored ones upserted
		start = time.Now()
		if err := r.limitsWrite(ctx, r.fresh(500), "n"); err != nil {
			return lv, fmt.Errorf("limits floor: %w", err)
		}
		record(mLimitsNew, time.Since(start))
		start = time.Now()
		if err := r.limitsWrite(ctx, r.limitsSeed, fmt.Sprintf("u%d-", round)); err != nil {
			return lv, fmt.Errorf("limits floor (upsert): %w", err)
		}
		record(mLimitsUpsert, time.Since(start))

		// ingest, all new
		d, body, err := r.do("POST", ingest, ingestBody(r.fresh(500), nil))
		if err == nil {
			err = summaryIs(body, map[string]int{"created": 500, "failed": 0, "pipeline_added": 500})
		}
		if err != nil {
			return lv, fmt.Errorf("ingest all new: %w", err)
		}
		record(mIngestNew, d)

		// ingest, all existing
		d, body, err = r.do("POST", ingest, updateBody)
		if err == nil {
			err = summaryIs(body, map[string]int{"updated": 500, "failed": 0})
		}
		if err != nil {
			return lv, fmt.Errorf("ingest all existing: %w", err)
		}
		record(mIngestUpdate, d)

		// ingest, mixed: 250 existing then 250 new, every tenth row failing
		mixed := append(append([]string{}, mixedSet...), r.fresh(250)...)
		d, body, err = r.do("POST", ingest, ingestBody(mixed, func(i int) bool { return i%10 == 0 }))
		if err == nil {
			err = summaryIs(body, map[string]int{"created": 225, "updated": 225, "failed": 50})
		}
		if err != nil {
			return lv, fmt.Errorf("ingest mixed: %w", err)
		}
		record(mIngestMixed, d)

		// waiting-list batch, all new clients
		d, body, err = r.do("POST", public+"/calendar/waitlist/entries/batch", r.waitlistBody(r.fresh(500)))
		if err == nil {
			data, _ := body["data"].(map[string]any)
			if c, _ := data["clients_created"].(float64); c != 500 {
				err = fmt.Errorf("clients_created = %v", data["clients_created"])
			} else if e, _ := data["entries_created"].(float64); e != 500 {
				err = fmt.Errorf("entries_created = %v", data["entries_created"])
			}
		}
		if err != nil {
			return lv, fmt.Errorf("waiting-list batch: %w", err)
		}
		record(mWaitlist, d)

		for range servicesPerRound {
			d, body, err = r.do("GET", public+"/calendar/services", nil)
			if err == nil {
				if list, _ := body["data"].([]any); len(list) != 4 {
					err = fmt.Errorf("%d services", len(list))
				}
			}
			if err != nil {
				return lv, fmt.Errorf("services: %w", err)
			}
			record(mServices, d)
		}

		for range availabilityPerRound {
			d, body, err = r.do("GET", public+"/calendar/availability?days=90", nil)
			if err == nil {
				if data, _ := body["data"].(map[string]any); data == nil {
					err = fmt.Errorf("no data: %v", body)
				}
			}
			if err != nil {
				return lv, fmt.Errorf("availability: %w", err)
			}
			record(mAvailability, d)
		}

		if err := r.resetAbove(ctx, watermark); err != nil {
			return lv, err
		}
		if err := r.resetLimits(ctx, r.limitsSeed); err != nil {
			return lv, err
		}
	}
	for name, d := range times {
		lv.Stats[name] = summarize(d)
	}
	logf("%d clients: %s", size, lv.brief(clientMeasurements))
	return lv, nil
}

// chatLevel fills the store up to messages background messages (plus the
// page's) and measures the chat page there.
func (r *runner) chatLevel(ctx context.Context, messages, iterations int, logf func(string, ...any)) (Level, error) {
	lv := Level{Stated: messages, Stats: map[string]Stat{}}
	start := time.Now()
	before := r.bgMessages
	if r.page == nil {
		logf("chat: loading the page's 50 conversations of 500 messages")
		if err := r.loadPage(ctx, time.Now()); err != nil {
			return lv, err
		}
	}
	if r.bgMessages < messages {
		logf("chat %d messages: bulk-loading %d messages in conversations of %d", messages, messages-r.bgMessages, messagesPerBackground)
		if err := r.loadBackground(ctx, messages); err != nil {
			return lv, err
		}
	}
	lv.Loaded, lv.LoadTime = r.bgMessages-before, time.Since(start)
	var err error
	if lv.Stored, err = r.countMessages(ctx); err != nil {
		return lv, err
	}
	logf("chat %d messages: %d stored (loaded in %s)", messages, lv.Stored, lv.LoadTime.Round(time.Millisecond))

	paths := map[string]string{
		mChatSync:   public + "/chat/conversations?sort_by=updated_at&limit=50&updated_after=" + url.QueryEscape(r.pageUpdated.UTC().Format(time.RFC3339Nano)),
		mChatNewest: public + "/chat/conversations?sort_by=-created_at&limit=50",
	}
	times := map[string][]time.Duration{}
	for round := 0; round <= iterations; round++ {
		for _, name := range chatMeasurements {
			d, body, err := r.do("GET", paths[name], nil)
			if err != nil {
				return lv, err
			}
			if round == 0 {
				if err := r.checkPage(body); err != nil {
					return lv, fmt.Errorf("%s: %w", name, err)
				}
				continue
			}
			times[name] = append(times[name], d)
		}
	}
	for name, d := range times {
		lv.Stats[name] = summarize(d)
	}
	logf("chat %d messages: %s", messages, lv.brief(chatMeasurements))
	return lv, nil
}

// checkPage verifies a chat page holds the 50 page conversations with 500
// messages each.
func (r *runner) checkPage(body map[string]any) error {
	data, _ := body["data"].([]any)
	if len(data) != len(r.page) {
		return fmt.Errorf("%d conversations on the page", len(data))
	}
	want := map[int64]bool{}
	for _, id := range r.page {
		want[id] = true
	}
	for _, c := range data {
		conv, _ := c.(map[string]any)
		id, _ := conv["session_id"].(float64)
		if id == 0 {
			id, _ = conv["id"].(float64)
		}
		if !want[int64(id)] {
			return fmt.Errorf("conversation %v is not one of the page's", id)
		}
		if msgs, _ := conv["messages"].([]any); len(msgs) != 500 {
			return fmt.Errorf("conversation %v has %d messages", id, len(msgs))
		}
	}
	return nil
}

// brief is a one-line summary of a level's medians for the progress log.
func (lv Level) brief(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", n, ms(lv.Stats[n].Median))
	}
	return b.String()
}

// ms formats a duration in milliseconds with a precision that suits it.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}
