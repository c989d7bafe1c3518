package clientserver_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/httpapi"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

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
