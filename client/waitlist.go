package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// WaitlistPrefs are an entry's preferences. Nil fields are not sent: a new
// entry takes the default, an existing open one keeps its value.
type WaitlistPrefs struct {
	Priority                *int    `json:"priority,omitempty"` // 0 urgent, 1 high, 2 normal, 3 low
	PreferredProfessionalID *int64  `json:"preferred_professional_id,omitempty"`
	EarliestDate            *string `json:"earliest_date,omitempty"` // YYYY-MM-DD
	LatestDate              *string `json:"latest_date,omitempty"`
	TimePreference          *string `json:"time_preference,omitempty"` // any, morning, afternoon, evening
	Notes                   *string `json:"notes,omitempty"`
}

// WaitlistAddRequest adds one client (by ClientID, or by Phone: matched or
// created) to the waiting list for each named service.
type WaitlistAddRequest struct {
	ClientID     int64    `json:"client_id,omitempty"`
	Phone        string   `json:"phone,omitempty"`
	FirstName    string   `json:"first_name,omitempty"` // used only when the client is created
	LastName     string   `json:"last_name,omitempty"`
	Email        string   `json:"email,omitempty"`
	WaitlistID   int64    `json:"waitlist_id,omitempty"` // 0: each service's active list
	ServiceIDs   []int64  `json:"service_ids,omitempty"`
	ServiceNames []string `json:"service_names,omitempty"`
	WaitlistPrefs
}

// WaitlistEntry is a waiting-list entry.
type WaitlistEntry struct {
	ID         int64 `json:"id"`
	WaitlistID int64 `json:"waitlist_id"`
	Client     struct {
		ID        int64   `json:"id"`
		FirstName string  `json:"first_name"`
		LastName  string  `json:"last_name"`
		Phone     *string `json:"phone"`
		Email     *string `json:"email"`
	} `json:"client"`
	Service                   IDName     `json:"service"`
	Status                    string     `json:"status"` // waiting, queued, snoozed, booked, removed, expired
	Priority                  int        `json:"priority"`
	Source                    string     `json:"source"`
	CreatedAt                 time.Time  `json:"created_at"`
	Position                  *int       `json:"position"` // nil once resolved
	QueueAttempts             int        `json:"queue_attempts"`
	FlaggedForReview          bool       `json:"flagged_for_review"`
	SnoozeUntil               *time.Time `json:"snooze_until"`
	QueuedAt                  *time.Time `json:"queued_at"`
	SeatExpiresAt             *time.Time `json:"seat_expires_at"`
	PreferredProfessionalID   *int64     `json:"preferred_professional_id"`
	PreferredProfessionalName *string    `json:"preferred_professional_name"`
	EarliestDate              *string    `json:"earliest_date"`
	LatestDate                *string    `json:"latest_date"`
	PreferredTimeWindows      []string   `json:"preferred_time_windows"`
	Notes                     string     `json:"notes"`
	DaysWaiting               int        `json:"days_waiting"`
	ResolvedAt                *time.Time `json:"resolved_at"`
	ResolutionReason          *string    `json:"resolution_reason"`
	// Created is set in add answers only: true when the call created the
	// entry, false when it updated an open one.
	Created *bool `json:"created"`
}

// WaitlistAddResult is the answer of AddToWaitlist.
type WaitlistAddResult struct {
	ClientID      int64           `json:"client_id"`
	ClientCreated bool            `json:"client_created"`
	Entries       []WaitlistEntry `json:"entries"`
}

// AddToWaitlist adds a client; idempotent per (client, service).
func (c *Client) AddToWaitlist(ctx context.Context, req WaitlistAddRequest, opts ...CallOption) (*WaitlistAddResult, error) {
	var out struct {
		Data WaitlistAddResult `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodPost, path: "/calendar/waitlist/entries", body: req}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}

// WaitlistBatchRow is one row of a waiting-list batch.
type WaitlistBatchRowInput struct {
	Phone        string   `json:"phone,omitempty"`
	FirstName    string   `json:"first_name,omitempty"`
	LastName     string   `json:"last_name,omitempty"`
	Email        string   `json:"email,omitempty"`
	ServiceIDs   []int64  `json:"service_ids,omitempty"`
	ServiceNames []string `json:"service_names,omitempty"`
	WaitlistPrefs
}

// WaitlistBatchRequest adds up to 500 rows to one list, atomically.
type WaitlistBatchRequest struct {
	WaitlistID          int64                   `json:"waitlist_id"`
	Entries             []WaitlistBatchRowInput `json:"entries"`
	DefaultRegion       string                  `json:"default_region,omitempty"` // ISO 3166 alpha-2
	SkipInvalid         bool                    `json:"skip_invalid,omitempty"`
	ExistingClientsOnly bool                    `json:"existing_clients_only,omitempty"`
}

// Waiting-list batch row statuses.
const (
	RowOK               = "ok"
	RowWillCreateClient = "will_create_client"
	RowAlreadyWaiting   = "already_waiting"
	RowError            = "error"
	RowDuplicateInFile  = "skip:duplicate_in_file"
)

// WaitlistBatchRow is one row's result.
type WaitlistBatchRow struct {
	Index    int      `json:"index"`
	Status   string   `json:"status"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Phone    *string  `json:"phone"`
	Email    *string  `json:"email"`
	ClientID *int64   `json:"client_id"`
}

// WaitlistBatchSummary counts rows per status.
type WaitlistBatchSummary struct {
	OK               int `json:"ok"`
	WillCreateClient int `json:"will_create_client"`
	AlreadyWaiting   int `json:"already_waiting"`
	Error            int `json:"error"`
	DuplicateInFile  int `json:"skip:duplicate_in_file"`
}

// WaitlistBatchResult is the answer of BatchWaitlist.
type WaitlistBatchResult struct {
	WaitlistID     int64                `json:"waitlist_id"`
	ClientsCreated int                  `json:"clients_created"`
	EntriesCreated int                  `json:"entries_created"`
	Skipped        int                  `json:"skipped"`
	Summary        WaitlistBatchSummary `json:"summary"`
	Rows           []WaitlistBatchRow   `json:"rows"`
}

// BatchWaitlist adds many clients. With SkipInvalid false, any row error is
// IMPORT_HAS_ERRORS (see ImportHasErrorsDetails) and nothing is written.
func (c *Client) BatchWaitlist(ctx context.Context, req WaitlistBatchRequest, opts ...CallOption) (*WaitlistBatchResult, error) {
	return c.batchWaitlist(ctx, req, opts)
}

// BatchWaitlistJSON is BatchWaitlist with a body the caller encoded itself
// (a WaitlistBatchRequest's JSON), sent as it is.
func (c *Client) BatchWaitlistJSON(ctx context.Context, body json.RawMessage, opts ...CallOption) (*WaitlistBatchResult, error) {
	return c.batchWaitlist(ctx, body, opts)
}

func (c *Client) batchWaitlist(ctx context.Context, body any, opts []CallOption) (*WaitlistBatchResult, error) {
	var out struct {
		Data WaitlistBatchResult `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodPost, path: "/calendar/waitlist/entries/batch", body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}

// WaitlistEntryFilter narrows ListWaitlistEntries; zero values are not sent.
type WaitlistEntryFilter struct {
	WaitlistID, ServiceID, ClientID int64
	// Status is one status, or "open" (the default), "resolved" or "all".
	Status        string
	Priority      *int
	Limit, Offset int // limit 1..200, default 50
}

// Page is one page of a list.
type Page[T any] struct {
	Data   []T `json:"data"`
	Count  int `json:"count"` // total matching
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

// ListWaitlistEntries lists entries by list, service and position.
func (c *Client) ListWaitlistEntries(ctx context.Context, f WaitlistEntryFilter, opts ...CallOption) (*Page[WaitlistEntry], error) {
	q := query(url.Values{})
	q.int("waitlist_id", f.WaitlistID)
	q.int("service_id", f.ServiceID)
	q.int("client_id", f.ClientID)
	q.str("status", f.Status)
	q.intPtr("priority", f.Priority)
	q.int("limit", int64(f.Limit))
	q.int("offset", int64(f.Offset))
	var out Page[WaitlistEntry]
	if err := c.do(ctx, request{method: http.MethodGet, path: "/calendar/waitlist/entries", query: url.Values(q)}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetWaitlistEntry reads one entry.
func (c *Client) GetWaitlistEntry(ctx context.Context, entryID int64, opts ...CallOption) (*WaitlistEntry, error) {
	var out struct {
		Data WaitlistEntry `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/calendar/waitlist/entries/" + pathID(entryID)}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}

// RemoveWaitlistEntry resolves an entry as removed (reason "" means the
// server's default, removed_via_api). An already resolved entry is
// returned unchanged.
func (c *Client) RemoveWaitlistEntry(ctx context.Context, entryID int64, reason string, opts ...CallOption) (*WaitlistEntry, error) {
	var body any
	if reason != "" {
		body = map[string]string{"reason": reason}
	}
	var out struct {
		Data WaitlistEntry `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodDelete, path: "/calendar/waitlist/entries/" + pathID(entryID), body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}

// CountResult is the answer of remove, move and remove-many operations.
type CountResult struct {
	Status       string `json:"status"`
	Message      string `json:"message"`
	SuccessCount int    `json:"success_count"`
	SkippedCount int    `json:"skipped_count"`
}

// RemoveWaitlistEntries removes up to 500 entries; unknown, resolved and
// repeated ids are skipped.
func (c *Client) RemoveWaitlistEntries(ctx context.Context, entryIDs []int64, reason string, opts ...CallOption) (*CountResult, error) {
	body := struct {
		EntryIDs []int64 `json:"entry_ids"`
		Reason   string  `json:"reason,omitempty"`
	}{entryIDs, reason}
	var out CountResult
	if err := c.do(ctx, request{method: http.MethodPost, path: "/calendar/waitlist/entries/remove", body: body}, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitlistSummary summarises every non-deleted list.
type WaitlistSummary struct {
	Totals struct {
		ListsCount      int `json:"lists_count"`
		WaitingEntries  int `json:"waiting_entries"`
		WaitingPatients int `json:"waiting_patients"`
		QueuedEntries   int `json:"queued_entries"`
		FlaggedEntries  int `json:"flagged_entries"`
		Booked30d       int `json:"booked_30d"`
	} `json:"totals"`
	Lists []struct {
		ID          int64  `json:"id"`
		Name        string `json:"name"`
		IsActive    bool   `json:"is_active"`
		Status      string `json:"status"` // active, paused
		HorizonDays int    `json:"horizon_days"`
		Counts      struct {
			WaitingEntries  int `json:"waiting_entries"`
			WaitingPatients int `json:"waiting_patients"`
			QueuedEntries   int `json:"queued_entries"`
			QueuedPatients  int `json:"queued_patients"`
			SnoozedEntries  int `json:"snoozed_entries"`
			FlaggedEntries  int `json:"flagged_entries"`
		} `json:"counts"`
		ServiceIDs []int64    `json:"service_ids"`
		LastRunAt  *time.Time `json:"last_run_at"`
		NextRunAt  *time.Time `json:"next_run_at"`
	} `json:"lists"`
	Services []struct {
		ServiceID       int64  `json:"service_id"`
		ServiceName     string `json:"service_name"`
		WaitlistID      int64  `json:"waitlist_id"`
		WaitingEntries  int    `json:"waiting_entries"`
		WaitingPatients int    `json:"waiting_patients"`
		QueuedEntries   int    `json:"queued_entries"`
		SnoozedEntries  int    `json:"snoozed_entries"`
		FlaggedEntries  int    `json:"flagged_entries"`
	} `json:"services"`
}

// GetWaitlistSummary summarises the waiting lists.
func (c *Client) GetWaitlistSummary(ctx context.Context, opts ...CallOption) (*WaitlistSummary, error) {
	var out struct {
		Data WaitlistSummary `json:"data"`
	}
	if err := c.do(ctx, request{method: http.MethodGet, path: "/calendar/waitlist/summary"}, &out, opts); err != nil {
		return nil, err
	}
	return &out.Data, nil
}
