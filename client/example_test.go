package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/frontdesk/frontdesk/client"
)

// Example runs against a fake of the API (an httptest server answering
// the ingest envelope), so its output is checked by go test; in production
// the base URL is the server's and the key a live key.
func Example() {
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v2/public/leadflow/ingest/0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01/batch" ||
			r.Header.Get("Authorization") != "Bearer pk_live_example" {
			http.Error(w, "unexpected request "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"success","dry_run":false,"input_node_uuid":"0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01",
			"summary":{"total":2,"created":1,"updated":0,"skipped":1,"failed":0,"pipeline_added":1,"pipeline_already_active":1},
			"results":[{"index":0,"external_id":"crm-1","status":"created","client_id":41,"pipeline":{"status":"added"}},
			           {"index":1,"external_id":"crm-2","status":"skipped","client_id":7,"matched_by":"phone","pipeline":{"status":"already_active"}}]}`)
	}))
	defer fake.Close()

	ctx := context.Background()
	c := client.New(fake.URL, "pk_live_example")

	res, err := c.IngestBatch(ctx, "0b7d6c52-5a52-4c1e-9a57-6f4a0f1f3a01", client.IngestBatchRequest{
		Clients: []client.IngestRow{
			{ExternalID: "crm-1", FirstName: "Eva", PhoneNumber: "+34611000111", Tags: []client.Tag{{Name: "lead"}}},
			{ExternalID: "crm-2", PhoneNumber: "600111222", AreaCode: "34"},
		},
	})
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.ErrorCode == client.CodeInputNodeInactive:
		log.Fatal("the input node was switched off in the dashboard")
	case err != nil:
		log.Fatal(err)
	}
	for _, row := range res.Results {
		// Correlate on external_id, never on position.
		fmt.Println(row.ExternalID, row.Status, row.Pipeline.Status)
	}
	// Output:
	// crm-1 created added
	// crm-2 skipped already_active
}

func ExampleClient_Book() {
	ctx := context.Background()
	c := client.New("https://api.example.com", "pk_live_example")
	madrid, _ := time.LoadLocation("Europe/Madrid")
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, madrid)

	// The key makes a retry after a lost connection safe; a 500 is retried
	// automatically either way.
	b, err := c.Book(ctx, client.BookingRequest{
		Client:           client.BookingClient{FirstName: "Luis", LastName: "Pérez", Phone: "+34600999888"},
		ServiceName:      "Limpieza dental",
		ProfessionalName: "Dr. López",
		EventTypeName:    "In person",
		StartAt:          client.WallClock(start),
		EndAt:            client.WallClock(start.Add(30 * time.Minute)),
		Timezone:         "Europe/Madrid",
	}, client.WithIdempotencyKey("crm-booking-8812"))
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.ErrorCode == client.CodeServiceNotFound {
		var d client.CatalogDetails
		apiErr.DecodeDetails(&d)
		log.Fatalf("unknown service; valid ones: %v", d.ValidServiceNames)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Appointment.ID, b.Appointment.StartAt.UTC())
}

func ExampleClient_Conversations() {
	ctx := context.Background()
	c := client.New("https://api.example.com", "pk_live_example")
	watermark := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) // the newest updated_at stored

	for conv, err := range c.Conversations(ctx, client.ConversationFilter{UpdatedAfter: watermark, SortBy: "updated_at"}) {
		if err != nil {
			log.Fatal(err)
		}
		if conv.UpdatedAt.After(watermark) {
			watermark = conv.UpdatedAt
		}
		fmt.Println(conv.SessionID, conv.Status, len(conv.Messages))
	}
}
