package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

const (
	acmeKey  = "pk_test_acme_main"
	otherKey = "pk_test_other_main"
	webNode  = "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01"
)

var testNow = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// env is a real server (httpapi on a migrated store, provisioned from the
// workspace fixtures) behind an httptest.Server, and the acme ids.
type env struct {
	srv  *httptest.Server
	ids  workspace.IDs
	db   *db.DB
	hits *hits
}

// hits counts the requests that reached the server, and makes chosen
// routes fail before the API sees them.
type hits struct {
	mu    sync.Mutex
	count map[string]int
	// fail500 answers the next N requests of a route ("METHOD /path") with
	// the API's 500 envelope; drop closes the connection instead.
	fail500, drop map[string]int
}

func (h *hits) of(route string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count[route]
}

func (h *hits) set(m map[string]int, route string, n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m[route] = n
}

func (h *hits) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := r.Method + " " + r.URL.Path
		h.mu.Lock()
		h.count[route]++
		fail, drop := h.fail500[route] > 0, h.drop[route] > 0
		if fail {
			h.fail500[route]--
		}
		if drop {
			h.drop[route]--
		}
		h.mu.Unlock()
		switch {
		case drop:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case fail:
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", r.Header.Get("X-Request-Id"))
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"status":"error","error_code":"INTERNAL_ERROR","message":"Internal server error. The request may be retried.","details":null}`)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func newEnv(t *testing.T, store *db.DB) *env {
	t.Helper()
	applier := &workspace.Applier{DB: store, Now: func() time.Time { return testNow }}
	var ids workspace.IDs
	for _, f := range []string{"../internal/workspace/testdata/acme.yaml", "../internal/httpapi/testdata/other.yaml", "../internal/httpapi/testdata/pipeline.yaml"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		res, err := applier.Apply(context.Background(), data)
		if err != nil {
			t.Fatalf("apply %s: %v", f, err)
		}
		if res.Account.Slug == "acme" && ids.Pipelines == nil {
			ids = res.IDs
		} else if res.Account.Slug == "acme" {
			for k, v := range res.IDs.Clients {
				ids.Clients[k] = v
			}
			for k, v := range res.IDs.Stages {
				ids.Stages[k] = v
			}
		}
	}
	h := &hits{count: map[string]int{}, fail500: map[string]int{}, drop: map[string]int{}}
	api := httpapi.NewServer(httpapi.Config{DB: store, Clock: clock.NewFake(testNow), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h.wrap(api))
	t.Cleanup(srv.Close)
	return &env{srv: srv, ids: ids, db: store, hits: h}
}

// client returns a client of the acme account with fast retries.
func (e *env) client(opts ...client.Option) *client.Client {
	opts = append([]client.Option{client.WithRetry(client.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond})}, opts...)
	return client.New(e.srv.URL, acmeKey, opts...)
}

// apiError asserts err is an *client.Error with the status and code.
func apiError(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *client.Error %d %s", err, err, status, code)
	}
	if e.StatusCode != status || e.ErrorCode != code {
		t.Fatalf("error %d %s (%s), want %d %s", e.StatusCode, e.ErrorCode, e.Message, status, code)
	}
	if e.RequestID == "" {
		t.Error("error without RequestID")
	}
	return e
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func TestPipelinesAndIngest(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()
		sales := e.ids.Pipelines["sales"]

		pipes := must[*client.Page[client.Pipeline]](t)(c.ListPipelines(ctx, client.PipelineFilter{Status: "active"}))
		if pipes.Count != 1 || pipes.Data[0].ID != sales || pipes.Data[0].Name != "Sales" || pipes.Limit != 50 {
			t.Fatalf("pipelines = %+v", pipes)
		}
		stages := must[[]client.Stage](t)(c.ListStages(ctx, sales))
		if len(stages) != 3 || stages[0].Name != "New" || !stages[0].IsEntryPoint {
			t.Fatalf("stages = %+v", stages)
		}
		nodes := must[[]client.InputNode](t)(c.ListInputNodes(ctx, sales))
		if len(nodes) != 3 || nodes[0].UUID != webNode || nodes[0].IngestPath != "/api/v2/public/leadflow/ingest/"+webNode+"/batch" {
			t.Fatalf("input nodes = %+v", nodes)
		}

		// A batch: one new contact, one known by phone; re-sent, it converges.
		batch := client.IngestBatchRequest{Clients: []client.IngestRow{
			{ExternalID: "crm-1", FirstName: "Eva", PhoneNumber: "+34611000111", Data: map[string]any{"source": "web"}, Tags: []client.Tag{{Name: "lead"}}},
			{ExternalID: "crm-2", PhoneNumber: "600111222", AreaCode: "34", Company: "ACME"},
		}}
		res := must[*client.IngestBatchResult](t)(c.IngestBatch(ctx, webNode, batch))
		if res.Summary.Created != 1 || res.Summary.Updated != 1 || res.Results[0].ExternalID != "crm-1" ||
			res.Results[0].Pipeline.Status != client.PlacementAdded || *res.Results[1].MatchedBy != "phone" ||
			res.Results[1].ExistingClient == nil || res.Results[1].ExistingClient.Name != "María García" {
			t.Fatalf("batch = %+v", res)
		}
		again := must[*client.IngestBatchResult](t)(c.IngestBatch(ctx, webNode, batch))
		if again.Summary.Created != 0 || again.Summary.Updated != 2 || again.Summary.PipelineAlreadyActive != 2 {
			t.Fatalf("re-sent batch = %+v", again.Summary)
		}

		// all_or_none: the rollback's details in the shape of a 200 body.
		_, err := c.IngestBatch(ctx, webNode, client.IngestBatchRequest{AllOrNone: true, Clients: []client.IngestRow{
			{ExternalID: "ok", PhoneNumber: "+34612345678"}, {ExternalID: "bad"}}})
		var rolled client.IngestRolledBackDetails
		if err := apiError(t, err, 400, client.CodeIngestRolledBack).DecodeDetails(&rolled); err != nil {
			t.Fatal(err)
		}
		if rolled.Summary.Failed != 1 || rolled.Results[0].ClientID != nil || rolled.Results[1].Errors[0].Code != "required" {
			t.Fatalf("rollback details = %+v", rolled)
		}

		// Single ingest.
		one := must[*client.IngestOneResult](t)(c.IngestOne(ctx, webNode, client.IngestOneRequest{
			IngestRow: client.IngestRow{ExternalID: "one", FirstName: "Solo", PhoneNumber: "+34622000111"}}))
		if one.Result.Status != client.IngestCreated || one.Result.ClientID == nil || one.PipelineID != sales {
			t.Fatalf("single = %+v", one)
		}
		_, err = c.IngestOne(ctx, webNode, client.IngestOneRequest{IngestRow: client.IngestRow{ExternalID: "none"}})
		var failed client.IngestRowFailedDetails
		apiError(t, err, 400, client.CodeIngestRowFailed).DecodeDetails(&failed)
		if failed.Result.ExternalID != "none" || failed.Result.Errors[0].Field != "phone_number" {
			t.Fatalf("row failed details = %+v", failed)
		}
		_, err = c.IngestOne(ctx, "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a02", client.IngestOneRequest{IngestRow: client.IngestRow{PhoneNumber: "+34622000112"}})
		apiError(t, err, 409, client.CodeInputNodeInactive)

		// Clients of the pipeline; add, move, remove.
		maria, pedro := e.ids.Clients["maria"], e.ids.Clients["pedro"]
		cards := must[*client.Page[client.PipelineClient]](t)(c.ListPipelineClients(ctx, sales, client.PipelineClientFilter{Limit: 10}))
		if cards.Count != 3 || cards.Limit != 10 {
			t.Fatalf("clients = %+v", cards)
		}
		added := must[*client.AddClientsResult](t)(c.AddClients(ctx, sales, []int64{pedro, maria, 999999}, 0))
		if added.SuccessCount != 1 || added.SkippedCount != 2 || !slices.Equal(added.NotFoundClientIDs, []int64{999999}) {
			t.Fatalf("add = %+v", added)
		}
		lost := e.ids.Stages["sales/lost"]
		moved := must[*client.CountResult](t)(c.MoveClient(ctx, sales, pedro, lost))
		if moved.SuccessCount != 1 {
			t.Fatalf("move = %+v", moved)
		}
		_, err = c.MoveClient(ctx, sales, pedro, e.ids.Stages["sales/new"])
		var rule client.MoveNotAllowedDetails
		apiError(t, err, 400, client.CodeMoveNotAllowed).DecodeDetails(&rule)
		if rule.FromStageID != lost || len(rule.AllowedTargetStageIDs) != 0 {
			t.Fatalf("move rule details = %+v", rule)
		}
		_, err = c.MoveClient(ctx, sales, pedro, 999999)
		if !client.IsNotFound(err) {
			t.Fatalf("move to an unknown stage: %v", err)
		}
		removed := must[*client.CountResult](t)(c.RemoveClients(ctx, sales, []int64{pedro, 999999}))
		if removed.SuccessCount != 1 || removed.SkippedCount != 1 {
			t.Fatalf("remove = %+v", removed)
		}

		// Error mapping: 404, 422 items, 401, and tenancy.
		_, err = c.ListStages(ctx, 999999)
		apiError(t, err, 404, client.CodeNotFound)
		_, err = c.ListPipelines(ctx, client.PipelineFilter{Limit: 500, Offset: -1})
		verr := apiError(t, err, 422, client.CodeInvalidRequest)
		if len(verr.Validation) != 2 || verr.Validation[0].Field() != "limit" || verr.Validation[0].Type != "less_than_equal" ||
			!strings.Contains(verr.Error(), "offset") {
			t.Fatalf("422 items = %+v (%v)", verr.Validation, verr)
		}
		_, err = c.IngestBatch(ctx, webNode, client.IngestBatchRequest{})
		if verr := apiError(t, err, 422, client.CodeInvalidRequest); verr.Validation[0].Field() != "clients" {
			t.Fatalf("empty batch: %+v", verr.Validation)
		}
		_, err = client.New(e.srv.URL, "pk_wrong_key_123").ListPipelines(ctx, client.PipelineFilter{})
		if e401 := apiError(t, err, 401, client.CodeUnauthorized); e401.Message != "Invalid or expired API key. Check your credentials." {
			t.Fatalf("401 message %q", e401.Message)
		}
		_, err = client.New(e.srv.URL, otherKey).ListStages(ctx, sales)
		apiError(t, err, 404, client.CodeNotFound)
	})
}

func TestChat(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()
		session := e.ids.Conversations["c1"]

		page := must[*client.ConversationPage](t)(c.ListConversations(ctx, client.ConversationFilter{Search: "garcía"}))
		if page.Count != 1 || page.Limit != 20 {
			t.Fatalf("conversations = %+v", page)
		}
		conv := page.Data[0]
		if conv.SessionID != session || conv.Client == nil || conv.Client.Name != "María García" || len(conv.Messages) != 4 ||
			conv.Messages[1].Sender.Type != "ai_agent" || conv.Messages[3].Media == nil || len(conv.Participants.AIAgents) != 1 ||
			*conv.Sentiment != "positive" || conv.Disposition.Name != "Booked" {
			t.Fatalf("conversation = %+v", conv)
		}
		browse := must[*client.ConversationPage](t)(c.ListConversations(ctx, client.ConversationFilter{IncludeMessages: client.Ptr(false)}))
		if browse.NextCursor != nil {
			t.Fatalf("next_cursor outside the updated_at order: %v", *browse.NextCursor)
		}
		if browse.Data[0].Messages != nil || browse.Data[0].MessageCount != 4 {
			t.Fatalf("metadata-only browse = %+v", browse.Data[0])
		}
		var seen []int64
		for conv, err := range c.Conversations(ctx, client.ConversationFilter{SortBy: "updated_at", UpdatedAfter: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, conv.SessionID)
		}
		if !slices.Equal(seen, []int64{session}) {
			t.Fatalf("iterated %v", seen)
		}

		// Many conversations, walked by cursor in the updated_at order while
		// one of them is updated mid-walk: none is skipped.
		walkConversations(t, e, c)

		msgs := must[*client.MessagePage](t)(c.ListMessages(ctx, session, client.MessageFilter{Limit: 2, Order: "desc"}))
		if msgs.Count != 4 || len(msgs.Data) != 2 || msgs.Data[0].Content != "(sent from phone)" || len(msgs.Participants.Users) != 1 {
			t.Fatalf("messages = %+v", msgs)
		}
		_, err := c.ListMessages(ctx, 999999, client.MessageFilter{})
		apiError(t, err, 404, client.CodeNotFound)
		_, err = c.ListConversations(ctx, client.ConversationFilter{Status: "open"})
		if verr := apiError(t, err, 422, client.CodeInvalidRequest); verr.Validation[0].Type != "literal_error" {
			t.Fatalf("422 = %+v", verr.Validation)
		}
	})
}

// walkConversations adds 25 conversations, walks them 4 per page in the
// updated_at order with the iterator (cursor paging), and appends a message
// to an already-seen one during the walk: every conversation is seen, and
// the updated one again at the end.
func walkConversations(t *testing.T, e *env, c *client.Client) {
	t.Helper()
	var yaml strings.Builder
	yaml.WriteString("account: {slug: acme, name: Acme Clinic, timezone: Europe/Madrid, default_region: ES}\nconversations:\n")
	for i := range 25 {
		fmt.Fprintf(&yaml, "  - {key: w%d, customer_phone_number: \"+3461100%04d\", status: new, direction: inbound, created_at: \"2026-02-%02dT10:00:00Z\",\n     messages: [{from: client, content: hi, timestamp: \"2026-02-%02dT10:00:00Z\"}]}\n", i, i, i%28+1, i%28+1)
	}
	res, err := (&workspace.Applier{DB: e.db, Now: func() time.Time { return testNow }}).Apply(context.Background(), []byte(yaml.String()))
	if err != nil {
		t.Fatal(err)
	}
	admin := httpapi.NewServer(httpapi.Config{DB: e.db, Clock: clock.NewFake(testNow.Add(time.Hour)), AdminToken: "admin",
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	seen := map[int64]int{}
	n := 0
	for conv, err := range c.Conversations(context.Background(), client.ConversationFilter{SortBy: "updated_at", Limit: 4, IncludeMessages: client.Ptr(false)}) {
		if err != nil {
			t.Fatal(err)
		}
		seen[conv.SessionID]++
		if n++; n == 6 { // update a conversation the walk has already passed
			req := httptest.NewRequest("POST", fmt.Sprintf("/api/v2/admin/workspaces/acme/conversations/%d/messages", res.IDs.Conversations["w0"]),
				strings.NewReader(`{"from": "client", "content": "again"}`))
			req.Header.Set("Authorization", "Bearer admin")
			rec := httptest.NewRecorder()
			admin.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("append: %d %s", rec.Code, rec.Body)
			}
		}
	}
	if len(seen) != 26 || seen[res.IDs.Conversations["w0"]] != 2 {
		t.Fatalf("walk saw %d conversations (w0 %d times), want 26 and 2", len(seen), seen[res.IDs.Conversations["w0"]])
	}
}

func TestCalendar(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()

		services := must[[]client.Service](t)(c.ListServices(ctx))
		if len(services) != 1 || services[0].Name != "Limpieza dental" || len(services[0].Professionals) != 1 {
			t.Fatalf("services = %+v", services)
		}
		av := must[*client.Availability](t)(c.GetAvailability(ctx, client.AvailabilityParams{Days: 2, ServiceIDs: []int64{services[0].ID}}))
		if av.Days != 2 || av.StartDate != "2026-11-23" || av.EndDate != "2026-11-24" || len(av.Services[0].ByDay) != 2 {
			t.Fatalf("availability = %+v", av)
		}

		fs := must[*client.FreeSlots](t)(c.GetFreeSlots(ctx, client.FreeSlotsParams{ServiceID: services[0].ID, StartDate: "2026-12-01", Days: 1, Limit: 2}))
		if fs.EndDate != "2026-12-01" || fs.DurationMinutes != 30 || len(fs.Slots) != 2 || !fs.HasMore ||
			fs.Slots[0].StartAt != "2026-12-01T09:00:00" || !fs.Slots[0].StartAtUTC.Equal(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)) ||
			fs.Slots[0].Professional != services[0].Professionals[0] {
			t.Fatalf("free slots = %+v", fs)
		}
		_, slotsErr := c.GetFreeSlots(ctx, client.FreeSlotsParams{ServiceID: 999999})
		var apiErr *client.Error
		if !errors.As(slotsErr, &apiErr) || apiErr.ErrorCode != "SERVICE_NOT_FOUND" {
			t.Fatalf("unknown service: %v", slotsErr)
		}

		madrid, _ := time.LoadLocation("Europe/Madrid")
		req := client.BookingRequest{
			Client:    client.BookingClient{FirstName: "Luis", LastName: "Pérez", Phone: "+34600999888"},
			ServiceID: services[0].ID, ProfessionalName: "dr. lopez", EventTypeName: "IN PERSON",
			StartAt:  client.WallClock(time.Date(2026, 12, 1, 10, 0, 0, 0, madrid)),
			EndAt:    client.WallClock(time.Date(2026, 12, 1, 10, 30, 0, 0, madrid)),
			Timezone: "Europe/Madrid", Notes: "First visit",
		}
		b := must[*client.Booking](t)(c.Book(ctx, req, client.WithIdempotencyKey("booking-1")))
		if !b.ClientCreated || b.Appointment.Status != "booked" || !b.Appointment.StartAt.Equal(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)) ||
			b.Appointment.Client.Phone != "+34600999888" || b.Appointment.CustomFields["booked_by"] != "api" {
			t.Fatalf("booking = %+v", b)
		}
		// The same key and body: the first answer, replayed; no second appointment.
		var info client.CallInfo
		replay := must[*client.Booking](t)(c.Book(ctx, req, client.WithIdempotencyKey("booking-1"), client.WithCallInfo(&info), client.WithRequestID("trace-42")))
		if replay.Appointment.ID != b.Appointment.ID || !info.Replayed || info.StatusCode != 200 || info.RequestID != "trace-42" || info.Attempts != 1 {
			t.Fatalf("replayed booking %d (%+v), want %d", replay.Appointment.ID, info, b.Appointment.ID)
		}
		req.Notes = "changed"
		_, err := c.Book(ctx, req, client.WithIdempotencyKey("booking-1"))
		apiError(t, err, 400, client.CodeIdempotencyKeyReused)

		req.ServiceID, req.ServiceName = 0, "Ortodoncia"
		_, err = c.Book(ctx, req)
		var cat client.CatalogDetails
		apiError(t, err, 400, client.CodeServiceNotFound).DecodeDetails(&cat)
		if cat.Field != "service_name" || !slices.Equal(cat.ValidServiceNames, []string{"Limpieza dental"}) {
			t.Fatalf("catalog details = %+v", cat)
		}
		if e := apiError(t, err, 400, client.CodeServiceNotFound); e.Field() != "service_name" {
			t.Fatalf("Field() = %q", e.Field())
		}
		_, err = c.Book(ctx, client.BookingRequest{Client: client.BookingClient{Phone: "+34600999888"}})
		if verr := apiError(t, err, 422, client.CodeInvalidRequest); len(verr.Validation) < 3 {
			t.Fatalf("422 = %+v", verr.Validation)
		}
	})
}

func TestWaitlist(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()
		cleaning := e.ids.Services["cleaning"]
		list := e.ids.Waitlists["main"]

		add := client.WaitlistAddRequest{Phone: "+34600111222", ServiceIDs: []int64{cleaning},
			WaitlistPrefs: client.WaitlistPrefs{Priority: client.Ptr(0), TimePreference: client.Ptr("morning")}}
		first := must[*client.WaitlistAddResult](t)(c.AddToWaitlist(ctx, add))
		entry := first.Entries[0]
		if first.ClientCreated || !*entry.Created || entry.Priority != 0 || *entry.Position != 1 || entry.PreferredTimeWindows[0] != "morning" {
			t.Fatalf("add = %+v", first)
		}
		second := must[*client.WaitlistAddResult](t)(c.AddToWaitlist(ctx, add))
		if *second.Entries[0].Created || second.Entries[0].ID != entry.ID {
			t.Fatalf("add again = %+v", second)
		}

		rows := []client.WaitlistBatchRowInput{
			{Phone: "611222333", FirstName: "Ana", ServiceNames: []string{"Limpieza dental"}},
			{Phone: "bad", ServiceIDs: []int64{cleaning}},
		}
		_, err := c.BatchWaitlist(ctx, client.WaitlistBatchRequest{WaitlistID: list, Entries: rows})
		var refused client.ImportHasErrorsDetails
		apiError(t, err, 400, client.CodeImportHasErrors).DecodeDetails(&refused)
		if refused.Summary.Error != 1 || refused.Rows[1].Status != client.RowError || refused.Rows[0].ClientID != nil {
			t.Fatalf("refused batch = %+v", refused)
		}
		batch := must[*client.WaitlistBatchResult](t)(c.BatchWaitlist(ctx, client.WaitlistBatchRequest{WaitlistID: list, Entries: rows, SkipInvalid: true}))
		if batch.EntriesCreated != 1 || batch.Rows[0].Status != client.RowWillCreateClient || *batch.Rows[0].Phone != "+34611222333" {
			t.Fatalf("batch = %+v", batch)
		}

		page := must[*client.Page[client.WaitlistEntry]](t)(c.ListWaitlistEntries(ctx, client.WaitlistEntryFilter{WaitlistID: list}))
		if page.Count != 2 || page.Data[0].ID != entry.ID || page.Data[0].Created != nil {
			t.Fatalf("entries = %+v", page)
		}
		got := must[*client.WaitlistEntry](t)(c.GetWaitlistEntry(ctx, entry.ID))
		if got.Client.FirstName != "María" || got.Service.ID != cleaning {
			t.Fatalf("entry = %+v", got)
		}
		sum := must[*client.WaitlistSummary](t)(c.GetWaitlistSummary(ctx))
		if sum.Totals.WaitingEntries != 2 || sum.Lists[0].Status != "active" {
			t.Fatalf("summary = %+v", sum)
		}
		removed := must[*client.WaitlistEntry](t)(c.RemoveWaitlistEntry(ctx, entry.ID, "booked by phone"))
		if removed.Status != "removed" || removed.Position != nil || *removed.ResolutionReason != "booked by phone" || removed.ResolvedAt == nil {
			t.Fatalf("removed = %+v", removed)
		}
		many := must[*client.CountResult](t)(c.RemoveWaitlistEntries(ctx, []int64{entry.ID, page.Data[1].ID, 999999}, ""))
		if many.SuccessCount != 1 || many.SkippedCount != 2 {
			t.Fatalf("remove many = %+v", many)
		}
		_, err = c.GetWaitlistEntry(ctx, 999999)
		apiError(t, err, 404, client.CodeNotFound)
		_, err = c.AddToWaitlist(ctx, client.WaitlistAddRequest{ServiceIDs: []int64{cleaning}})
		if verr := apiError(t, err, 422, client.CodeInvalidRequest); verr.Validation[0].Field() != "phone" || verr.Validation[0].Type != "missing" {
			t.Fatalf("422 = %+v", verr.Validation)
		}
	})
}

// TestRetry proves the retry rules: a 500 is retried for booking, for GETs
// and for calls with an Idempotency-Key, and not for ingest without one;
// 4xx are never retried; a connection lost in transit is retried only when
// a repeat cannot apply twice; the context bounds the waiting.
func TestRetry(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		e := newEnv(t, store)
		c := e.client()
		ctx := context.Background()
		sales := e.ids.Pipelines["sales"]
		const (
			bookRoute   = "POST /api/v2/public/calendar/events"
			listRoute   = "GET /api/v2/public/leadflow/pipelines"
			ingestRoute = "POST /api/v2/public/leadflow/ingest/" + webNode + "/batch"
		)
		appointments := func() int {
			var n int
			if err := store.QueryRow(ctx, "SELECT COUNT(*) FROM appointments").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		booking := client.BookingRequest{Client: client.BookingClient{FirstName: "Ana", Phone: "+34600999777"},
			ServiceID: e.ids.Services["cleaning"], ProfessionalID: e.ids.Professionals["lopez"], EventTypeID: e.ids.EventTypes["visit"],
			StartAt: "2026-12-01T10:00:00", EndAt: "2026-12-01T10:30:00", Timezone: "Europe/Madrid"}
		batch := client.IngestBatchRequest{Clients: []client.IngestRow{{ExternalID: "r", PhoneNumber: "+34633000111"}}}

		t.Run("booking 500 is retried", func(t *testing.T) {
			e.hits.set(e.hits.fail500, bookRoute, 2)
			before := e.hits.of(bookRoute)
			b := must[*client.Booking](t)(c.Book(ctx, booking))
			if n := e.hits.of(bookRoute) - before; n != 3 || b.Appointment.ID == 0 || appointments() != 1 {
				t.Fatalf("attempts %d, appointments %d", n, appointments())
			}
		})
		t.Run("GET 500 is retried", func(t *testing.T) {
			e.hits.set(e.hits.fail500, listRoute, 1)
			before := e.hits.of(listRoute)
			must[*client.Page[client.Pipeline]](t)(c.ListPipelines(ctx, client.PipelineFilter{}))
			if n := e.hits.of(listRoute) - before; n != 2 {
				t.Fatalf("attempts %d, want 2", n)
			}
		})
		t.Run("ingest 500 without a key is not retried", func(t *testing.T) {
			e.hits.set(e.hits.fail500, ingestRoute, 1)
			before := e.hits.of(ingestRoute)
			_, err := c.IngestBatch(ctx, webNode, batch)
			if apiErr := apiError(t, err, 500, client.CodeInternalError); apiErr.Attempts != 1 {
				t.Fatalf("Attempts = %d", apiErr.Attempts)
			}
			if n := e.hits.of(ingestRoute) - before; n != 1 {
				t.Fatalf("attempts %d, want 1", n)
			}
		})
		t.Run("ingest 500 with a key is retried", func(t *testing.T) {
			e.hits.set(e.hits.fail500, ingestRoute, 1)
			before := e.hits.of(ingestRoute)
			res := must[*client.IngestBatchResult](t)(c.IngestBatch(ctx, webNode, batch, client.WithIdempotencyKey("ingest-1")))
			if n := e.hits.of(ingestRoute) - before; n != 2 || res.Summary.Created != 1 {
				t.Fatalf("attempts %d, summary %+v", n, res.Summary)
			}
		})
		t.Run("4xx is never retried", func(t *testing.T) {
			route := fmt.Sprintf("PATCH /api/v2/public/leadflow/pipelines/%d/clients/%d/move", sales, e.ids.Clients["maria"])
			before := e.hits.of(route)
			_, err := c.MoveClient(ctx, sales, e.ids.Clients["maria"], 999999, client.WithIdempotencyKey("move-1"))
			apiError(t, err, 404, client.CodeNotFound)
			_, err = c.Book(ctx, client.BookingRequest{})
			apiError(t, err, 422, client.CodeInvalidRequest)
			if n := e.hits.of(route) - before; n != 1 {
				t.Fatalf("attempts %d, want 1", n)
			}
		})
		t.Run("retries are bounded", func(t *testing.T) {
			e.hits.set(e.hits.fail500, listRoute, 100)
			defer e.hits.set(e.hits.fail500, listRoute, 0)
			_, err := c.ListPipelines(ctx, client.PipelineFilter{})
			if apiErr := apiError(t, err, 500, client.CodeInternalError); apiErr.Attempts != 4 {
				t.Fatalf("Attempts = %d, want 4 (the default policy)", apiErr.Attempts)
			}
		})
		t.Run("a lost connection is retried only when a repeat is safe", func(t *testing.T) {
			e.hits.set(e.hits.drop, listRoute, 1)
			must[*client.Page[client.Pipeline]](t)(c.ListPipelines(ctx, client.PipelineFilter{}))
			e.hits.set(e.hits.drop, bookRoute, 1)
			before := e.hits.of(bookRoute)
			if _, err := c.Book(ctx, booking); err == nil || errors.As(err, new(*client.Error)) {
				t.Fatalf("booking over a dropped connection: %v, want a transport error", err)
			}
			if n := e.hits.of(bookRoute) - before; n != 1 {
				t.Fatalf("booking sent %d times over a lost connection, want 1", n)
			}
		})
		t.Run("the context bounds the backoff", func(t *testing.T) {
			e.hits.set(e.hits.fail500, listRoute, 100)
			defer e.hits.set(e.hits.fail500, listRoute, 0)
			slow := client.New(e.srv.URL, acmeKey, client.WithRetry(client.RetryPolicy{MaxAttempts: 10, BaseDelay: time.Minute, MaxDelay: time.Minute}))
			cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := slow.ListPipelines(cctx, client.PipelineFilter{})
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
				t.Fatalf("err %v after %v", err, time.Since(start))
			}
		})
	})
}

// TestErrorParsing covers answers outside the API's envelopes.
func TestErrorParsing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-1")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>bad gateway</html>")
	}))
	defer srv.Close()
	_, err := client.New(srv.URL, acmeKey, client.WithRetry(client.RetryPolicy{MaxAttempts: 1})).ListServices(context.Background())
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 502 || e.ErrorCode != client.CodeUnexpectedResponse || e.RequestID != "req-1" || e.Attempts != 1 {
		t.Fatalf("err = %#v", err)
	}
	var raw map[string]any
	if json.Unmarshal(e.Body, &raw) == nil {
		t.Fatal("body should be kept raw")
	}
}

// TestRetryStatuses proves which answers are sent again for which calls: a
// 429 always (nothing was applied), a 500 for GETs, booking, keyed and
// repeat-safe calls, a proxy's 502/503/504 only where a repeat cannot apply
// twice (not booking), and never a 4xx; OnRetry hears every retry with its
// reason and the Retry-After wait.
func TestRetryStatuses(t *testing.T) {
	type call func(c *client.Client) error
	list := func(c *client.Client) error { _, err := c.ListServices(context.Background()); return err }
	ingest := func(opts ...client.CallOption) call {
		return func(c *client.Client) error {
			_, err := c.IngestBatchJSON(context.Background(), webNode, json.RawMessage(`{"clients":[{"phone_number":"+34600000001"}]}`), opts...)
			return err
		}
	}
	book := func(c *client.Client) error {
		_, err := c.Book(context.Background(), client.BookingRequest{})
		return err
	}
	for _, test := range []struct {
		name   string
		call   call
		status int
		want   int // attempts
	}{
		{"GET 429", list, 429, 2},
		{"GET 502", list, 502, 2},
		{"GET 504", list, 504, 2},
		{"GET 404", list, 404, 1},
		{"ingest 429", ingest(), 429, 2},
		{"ingest 500", ingest(), 500, 1},
		{"ingest 503", ingest(), 503, 1},
		{"repeat-safe ingest 500", ingest(client.WithRepeatSafe()), 500, 2},
		{"repeat-safe ingest 503", ingest(client.WithRepeatSafe()), 503, 2},
		{"repeat-safe ingest 409", ingest(client.WithRepeatSafe()), 409, 1},
		{"keyed ingest 502", ingest(client.WithIdempotencyKey("k")), 502, 2},
		{"booking 500", book, 500, 2},
		{"booking 504", book, 504, 1},
		{"booking 429", book, 429, 2},
	} {
		t.Run(test.name, func(t *testing.T) {
			var calls int
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				b, _ := io.ReadAll(r.Body)
				bodies = append(bodies, string(b))
				if calls == 1 {
					w.Header().Set("Retry-After", "0")
					w.WriteHeader(test.status)
					io.WriteString(w, `{"status":"error","error_code":"X","message":"m","details":null}`)
					return
				}
				if r.Method == http.MethodGet {
					io.WriteString(w, `{"status":"success","data":[]}`)
					return
				}
				io.WriteString(w, `{"status":"success","results":[]}`)
			}))
			defer srv.Close()
			var heard []string
			c := client.New(srv.URL, acmeKey, client.WithRetry(client.RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour,
				OnRetry: func(n int, err error, wait time.Duration) {
					heard = append(heard, fmt.Sprintf("%d %v %v", n, wait, err))
				}}))
			err := test.call(c)
			if calls != test.want || len(heard) != test.want-1 {
				t.Fatalf("attempts %d (heard %q), want %d; err %v", calls, heard, test.want, err)
			}
			if test.want == 1 {
				if e := new(client.Error); !errors.As(err, &e) || e.StatusCode != test.status {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(heard[0], fmt.Sprintf("1 0s frontdesk: HTTP %d X: m", test.status)) {
				t.Fatalf("err %v, heard %q", err, heard)
			}
			if len(bodies) == 2 && bodies[0] != bodies[1] {
				t.Fatalf("bodies differ: %s / %s", bodies[0], bodies[1])
			}
		})
	}
}
