package clientserver_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
)

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
