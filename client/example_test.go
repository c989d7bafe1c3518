package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/frontdesk/frontdesk/client"
)

func Example() {
	ctx := context.Background()
	c := client.New("https://api.example.com", "pk_live_example")

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
