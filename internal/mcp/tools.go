// Package mcp is Frontdesk's Model Context Protocol front door
// (docs/contract.md, MCP): ten tools an AI agent calls to book, queue, ingest and read, each with
// a JSON schema for its input and its structured output generated from the
// Go types of this file. The tools are defined once here and answered by a
// Backend: Local calls the area packages for one account (the /mcp route of
// the server), Remote calls the public API through the Go client (the stdio
// mode of `frontdesk mcp`). A refused call is a tool result with isError
// true whose structured content is the contract's error body.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/valid"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// Backend answers the ten tools. Errors are *errs.Error (a refusal with a
// contract code), valid.Error (schema problems) or anything else (internal).
type Backend interface {
	ListServices(ctx context.Context, in ListServicesIn) (ListServicesOut, error)
	FindSlots(ctx context.Context, in FindSlotsIn) (calendar.SlotList, error)
	BookAppointment(ctx context.Context, in BookAppointmentIn) (BookAppointmentOut, error)
	AddToWaitlist(ctx context.Context, in AddToWaitlistIn) (waitlist.AddResult, error)
	WaitlistSummary(ctx context.Context, in WaitlistSummaryIn) (waitlist.SummaryResult, error)
	ListPipelines(ctx context.Context, in ListPipelinesIn) (ListPipelinesOut, error)
	IngestLeads(ctx context.Context, in IngestLeadsIn) (pipeline.IngestResult, error)
	MoveClient(ctx context.Context, in MoveClientIn) (pipeline.Result, error)
	SearchConversations(ctx context.Context, in SearchConversationsIn) (SearchConversationsOut, error)
	GetConversationMessages(ctx context.Context, in GetConversationMessagesIn) (ConversationMessagesOut, error)
}

// errorCodesHelp is appended to every description: the codes every tool
// may answer with.
const errorCodesHelp = ` On failure the result has isError true and structured content {status: "error", error_code, message, details}; branch on error_code. VALIDATION_ERROR: an argument is malformed or out of range (details.errors lists each problem with loc and msg; fix the arguments and retry). RATE_LIMITED: wait details.retry_after_seconds. INTERNAL_ERROR: retry later.`

// ListServicesIn takes no arguments.
type ListServicesIn struct{}

// ListServicesOut is the bookable catalog.
type ListServicesOut struct {
	Services []calendar.Service `json:"services" jsonschema:"the active services, each with its active professionals and event types (ids and names usable in find_slots and book_appointment)"`
}

// FindSlotsIn is the free-slots query (docs/contract.md, Free slots).
type FindSlotsIn struct {
	ServiceID       int64   `json:"service_id" jsonschema:"the service to book (an id from list_services)"`
	ProfessionalIDs []int64 `json:"professional_ids,omitempty" jsonschema:"only these professionals (ids from list_services), at most 500 distinct; omit for every professional of the service"`
	StartDate       string  `json:"start_date,omitempty" jsonschema:"first day, YYYY-MM-DD; omit for today in timezone"`
	Days            int     `json:"days,omitempty" jsonschema:"number of days to search, 1..31 (default 7)"`
	Timezone        string  `json:"timezone,omitempty" jsonschema:"IANA zone of the days and of the wall-clock start_at/end_at (default the account's)"`
	Limit           int     `json:"limit,omitempty" jsonschema:"maximum slots returned, 1..500 (default 100); has_more tells when there were more"`
}

// BookingClientIn is the customer of a booking.
type BookingClientIn struct {
	Phone     string `json:"phone" jsonschema:"the customer's phone, ideally with country code (+34600111222)"`
	FirstName string `json:"first_name,omitempty" jsonschema:"needed when the phone is new (a client is created), ignored for a known phone"`
	LastName  string `json:"last_name,omitempty" jsonschema:"see first_name"`
	Email     string `json:"email,omitempty" jsonschema:"optional e-mail of a new client"`
}

// BookAppointmentIn is the booking body.
type BookAppointmentIn struct {
	Client           BookingClientIn `json:"client" jsonschema:"who the appointment is for"`
	ServiceID        *int64          `json:"service_id,omitempty" jsonschema:"the service id (or give service_name)"`
	ServiceName      *string         `json:"service_name,omitempty" jsonschema:"the service name, matched case- and accent-insensitively"`
	ProfessionalID   *int64          `json:"professional_id,omitempty" jsonschema:"the professional id (from the slot's professional.id, or give professional_name)"`
	ProfessionalName *string         `json:"professional_name,omitempty" jsonschema:"the professional's name"`
	EventTypeID      *int64          `json:"event_type_id,omitempty" jsonschema:"the event type id (from list_services, or give event_type_name)"`
	EventTypeName    *string         `json:"event_type_name,omitempty" jsonschema:"the event type's name"`
	StartAt          string          `json:"start_at" jsonschema:"start, wall clock in timezone: use a slot's start_at from find_slots (2026-12-01T10:00:00)"`
	EndAt            string          `json:"end_at" jsonschema:"end, wall clock in timezone: the slot's end_at"`
	Timezone         string          `json:"timezone" jsonschema:"IANA zone of start_at/end_at: the timezone find_slots answered with"`
	Notes            string          `json:"notes,omitempty" jsonschema:"free notes for the team, up to 2000 characters"`
	Recurrence       *RecurrenceIn   `json:"recurrence,omitempty" jsonschema:"repeat weekly at the same local time (a course); every occurrence is booked, each with its own warnings"`
}

// BookAppointmentOut is the booking answer.
type BookAppointmentOut struct {
	Appointment   calendar.Appointment `json:"appointment" jsonschema:"the appointment booked; warnings lists anything unusual (outside hours, overlap) that did not stop it"`
	ClientID      int64                `json:"client_id" jsonschema:"the client booked for"`
	ClientCreated bool                 `json:"client_created" jsonschema:"true when the phone was new and a client was created"`
	Series        *calendar.Series     `json:"series,omitempty" jsonschema:"with recurrence: the series id and every occurrence (id, start_at, end_at, warnings)"`
}

// AddToWaitlistIn is the single-add body.
type AddToWaitlistIn struct {
	ClientID                *int64   `json:"client_id,omitempty" jsonschema:"an existing client id (wins over phone); give client_id or phone"`
	Phone                   string   `json:"phone,omitempty" jsonschema:"the customer's phone: matched, or a client is created"`
	FirstName               string   `json:"first_name,omitempty" jsonschema:"used only when a client is created"`
	LastName                string   `json:"last_name,omitempty" jsonschema:"used only when a client is created"`
	Email                   string   `json:"email,omitempty" jsonschema:"used only when a client is created"`
	WaitlistID              *int64   `json:"waitlist_id,omitempty" jsonschema:"a specific waiting list; omit to use the active list holding each service"`
	ServiceIDs              []int64  `json:"service_ids,omitempty" jsonschema:"services wanted (ids from list_services), at most 500; give service_ids or service_names"`
	ServiceNames            []string `json:"service_names,omitempty" jsonschema:"services wanted, by name, at most 500"`
	Priority                *int     `json:"priority,omitempty" jsonschema:"0 urgent, 1 high, 2 normal (default), 3 low"`
	PreferredProfessionalID *int64   `json:"preferred_professional_id,omitempty" jsonschema:"a professional the customer prefers"`
	EarliestDate            *string  `json:"earliest_date,omitempty" jsonschema:"YYYY-MM-DD, not before"`
	LatestDate              *string  `json:"latest_date,omitempty" jsonschema:"YYYY-MM-DD, not after"`
	TimePreference          *string  `json:"time_preference,omitempty" jsonschema:"any, morning, afternoon or evening"`
	Notes                   *string  `json:"notes,omitempty" jsonschema:"free notes"`
}

// WaitlistSummaryIn takes no arguments.
type WaitlistSummaryIn struct{}

// ListPipelinesIn filters pipelines.
type ListPipelinesIn struct {
	Status string `json:"status,omitempty" jsonschema:"only pipelines of this status (active, archived); omit for all"`
	Limit  int    `json:"limit,omitempty" jsonschema:"1..200 (default 50)"`
	Offset int    `json:"offset,omitempty" jsonschema:"pipelines to skip (default 0)"`
}

// PipelineWithStages is a pipeline and its stages.
type PipelineWithStages struct {
	pipeline.Pipeline
	Stages []pipeline.Stage `json:"stages" jsonschema:"the stages (columns) by position; their ids are move_client's target_stage_id"`
}

// ListPipelinesOut is a page of pipelines.
type ListPipelinesOut struct {
	Pipelines []PipelineWithStages `json:"pipelines"`
	Count     int                  `json:"count" jsonschema:"all pipelines matching"`
	Limit     int                  `json:"limit"`
	Offset    int                  `json:"offset"`
}

// LeadTag is a tag of a lead.
type LeadTag struct {
	Name        string  `json:"name" jsonschema:"tag name"`
	Color       string  `json:"color,omitempty" jsonschema:"hex color (default #808080)"`
	Description *string `json:"description,omitempty"`
}

// LeadRow is one contact of ingest_leads.
type LeadRow struct {
	ExternalID  string         `json:"external_id,omitempty" jsonschema:"your own id of the row, echoed back in its result"`
	ClientID    *int64         `json:"client_id,omitempty" jsonschema:"an existing client id"`
	FirstName   string         `json:"first_name,omitempty"`
	LastName    string         `json:"last_name,omitempty"`
	PhoneNumber string         `json:"phone_number,omitempty" jsonschema:"phone, with country code or with area_code"`
	AreaCode    string         `json:"area_code,omitempty" jsonschema:"country calling code for a national phone_number (34, +34)"`
	Email       string         `json:"email,omitempty"`
	Company     string         `json:"company,omitempty"`
	Timezone    string         `json:"timezone,omitempty" jsonschema:"IANA zone of the contact"`
	Data        map[string]any `json:"data,omitempty" jsonschema:"custom fields merged into the client's data (a null value removes a key)"`
	Tags        []LeadTag      `json:"tags,omitempty" jsonschema:"at most 100 (more is the row's error)"`
}

// LeadDefaults apply where a row is silent.
type LeadDefaults struct {
	AreaCode string         `json:"area_code,omitempty"`
	Timezone string         `json:"timezone,omitempty"`
	Tags     []LeadTag      `json:"tags,omitempty" jsonschema:"at most 100"`
	Data     map[string]any `json:"data,omitempty"`
}

// IngestLeadsIn is the batch-ingest body plus its input node.
type IngestLeadsIn struct {
	InputNodeUUID      string        `json:"input_node_uuid" jsonschema:"the UUID of an API input node of a pipeline (where the leads enter)"`
	Clients            []LeadRow     `json:"clients" jsonschema:"1..500 contacts; each needs client_id, phone_number or email"`
	OnDuplicate        string        `json:"on_duplicate,omitempty" jsonschema:"update (default), skip or fail: what to do with a contact that already exists"`
	AllOrNone          bool          `json:"all_or_none,omitempty" jsonschema:"write nothing when any row fails"`
	DryRun             bool          `json:"dry_run,omitempty" jsonschema:"validate and report without writing"`
	TriggerAutomations *bool         `json:"trigger_automations,omitempty" jsonschema:"run the stage's automations (default true)"`
	StageID            int64         `json:"stage_id,omitempty" jsonschema:"place on this stage of the node's pipeline instead of the node's target"`
	Defaults           *LeadDefaults `json:"defaults,omitempty"`
}

// MoveClientIn moves a client's card.
type MoveClientIn struct {
	PipelineID    int64 `json:"pipeline_id" jsonschema:"the pipeline (from list_pipelines)"`
	ClientID      int64 `json:"client_id" jsonschema:"the client whose card moves"`
	TargetStageID int64 `json:"target_stage_id" jsonschema:"the stage to move to (a stage id of that pipeline)"`
}

// SearchConversationsIn is the conversation-list query.
type SearchConversationsIn struct {
	Search                string  `json:"search,omitempty" jsonschema:"free text matched in the conversation, its client and its messages"`
	ClientID              int64   `json:"client_id,omitempty" jsonschema:"only this client's conversations"`
	Status                string  `json:"status,omitempty" jsonschema:"only this status"`
	Direction             string  `json:"direction,omitempty" jsonschema:"inbound or outbound"`
	CreatedAfter          string  `json:"created_after,omitempty" jsonschema:"RFC 3339 timestamp, inclusive"`
	CreatedBefore         string  `json:"created_before,omitempty" jsonschema:"RFC 3339 timestamp, exclusive"`
	UpdatedAfter          string  `json:"updated_after,omitempty" jsonschema:"RFC 3339 timestamp, inclusive"`
	DispositionTagIDs     []int64 `json:"disposition_tag_ids,omitempty" jsonschema:"only conversations with one of these disposition tags, at most 500 distinct ids"`
	SortBy                string  `json:"sort_by,omitempty" jsonschema:"created_at, updated_at, last_message_at or client_name, prefixed with - for descending (default -created_at)"`
	Limit                 int     `json:"limit,omitempty" jsonschema:"1..50 (default 20)"`
	Offset                int     `json:"offset,omitempty"`
	IncludeMessages       bool    `json:"include_messages,omitempty" jsonschema:"embed each conversation's oldest messages (default false; use get_conversation_messages to page one transcript)"`
	MaxMessagesPerSession int     `json:"max_messages_per_session,omitempty" jsonschema:"messages embedded per conversation when include_messages (default 500)"`
}

// SearchConversationsOut is a page of conversations.
type SearchConversationsOut struct {
	Conversations []chat.Conversation `json:"conversations"`
	Count         int                 `json:"count" jsonschema:"all conversations matching"`
	Limit         int                 `json:"limit"`
	Offset        int                 `json:"offset"`
	HasMore       bool                `json:"has_more" jsonschema:"more conversations match: call again with offset next_offset"`
	NextOffset    *int                `json:"next_offset" jsonschema:"the offset of the next page; null on the last"`
}

// GetConversationMessagesIn pages one conversation.
type GetConversationMessagesIn struct {
	SessionID int64  `json:"session_id" jsonschema:"the conversation's session_id (from search_conversations)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"1..500 (default 100)"`
	Offset    int    `json:"offset,omitempty"`
	Order     string `json:"order,omitempty" jsonschema:"asc (default) or desc by timestamp"`
}

// ConversationMessagesOut is a page of messages with the roster.
type ConversationMessagesOut struct {
	SessionID    int64             `json:"session_id"`
	Messages     []chat.Message    `json:"messages"`
	Count        int               `json:"count" jsonschema:"all messages of the conversation"`
	Limit        int               `json:"limit"`
	Offset       int               `json:"offset"`
	HasMore      bool              `json:"has_more" jsonschema:"more messages follow: call again with offset next_offset"`
	NextOffset   *int              `json:"next_offset" jsonschema:"the offset of the next page; null on the last"`
	Participants chat.Participants `json:"participants"`
}

// ToolNames are the tools in the order tools/list answers them.
var ToolNames = []string{"list_services", "find_slots", "book_appointment", "add_to_waitlist", "waitlist_summary",
	"list_pipelines", "ingest_leads", "move_client", "search_conversations", "get_conversation_messages"}

// Options configure a server.
type Options struct {
	Version string       // the implementation version announced to hosts
	Log     *slog.Logger // internal errors are logged here (nil: slog.Default())
	// MaxBodyBytes is the largest request body Handler reads (0: the SDK's
	// default); the API passes its own cap.
	MaxBodyBytes int64
}

// NewServer builds an MCP server whose ten tools b answers.
func NewServer(b Backend, opts Options) *sdk.Server {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "frontdesk", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: "Frontdesk books appointments, keeps waiting lists, places leads on pipelines and reads chat history for one clinic account. " +
			"To book: list_services, then find_slots, then book_appointment with a listed slot's start_at, end_at, professional.id and the timezone find_slots answered.",
	})
	add(s, opts.Log, reads, "list_services", "List the account's bookable services with their professionals and event types (ids and names). Call this first to learn what can be booked or queued."+errorCodesHelp, b.ListServices)
	add(s, opts.Log, reads, "find_slots", "Find free appointment slots of one service over a window of days, by start then professional. Each slot can be booked as is with book_appointment. SERVICE_NOT_FOUND: the service_id is unknown (details.valid_service_ids lists the valid ones); INVALID_TIMEZONE: use an IANA zone such as Europe/Madrid."+errorCodesHelp, b.FindSlots)
	add(s, opts.Log, writes, "book_appointment", "Book an appointment for a customer identified by phone (created when new). Use a slot from find_slots: its start_at, end_at, professional.id and the same timezone. "+
		"SERVICE_NOT_FOUND / PROFESSIONAL_NOT_FOUND / EVENT_TYPE_NOT_FOUND: details lists the valid names and ids, pick one; AMBIGUOUS_MATCH: a name matched several, use an id from details.candidates; "+
		"NAME_REQUIRED: the phone is new, ask the customer's name; INVALID_PHONE: ask for the number with country code; INVALID_TIMEZONE / INVALID_TIME_RANGE: fix the times (end after start, a real wall-clock time)."+errorCodesHelp, b.BookAppointment)
	add(s, opts.Log, writes, "add_to_waitlist", "Put a customer (client_id, or phone: matched or created) on the waiting list for one or more services, when no slot suits them; they are offered a seat when one frees up. "+
		"SERVICE_NOT_FOUND: details lists valid services; CLIENT_NOT_FOUND: the client_id is unknown, use the phone; NO_ACTIVE_WAITLIST: no active list holds that service (details.service_id), the customer cannot be queued for it; "+
		"SERVICE_NOT_IN_WAITLIST: the service is not in the given waitlist_id; WAITLIST_INACTIVE: that list is paused; INVALID_PHONE: ask for the number with country code."+errorCodesHelp, b.AddToWaitlist)
	add(s, opts.Log, reads, "waitlist_summary", "Summarize the waiting lists: patients waiting, entries per list and service, bookings from the list in the last 30 days, next seat-offering run."+errorCodesHelp, b.WaitlistSummary)
	add(s, opts.Log, reads, "list_pipelines", "List the account's lead pipelines with their stages (ids, names, positions). Use the stage ids with move_client; input nodes for ingest_leads are configured per pipeline."+errorCodesHelp, b.ListPipelines)
	add(s, opts.Log, writes, "ingest_leads", "Place up to 500 contacts on a pipeline through an API input node: each row is matched to an existing client (client_id, phone, e-mail) or creates one, and gets a card on the node's stage. Each row has its own result (status, errors); a failed row does not fail the others unless all_or_none. "+
		"NOT_FOUND: the input_node_uuid is unknown (or not an API node); INPUT_NODE_INACTIVE: the node is switched off; STAGE_NOT_IN_PIPELINE: stage_id is not a stage of the node's pipeline; BATCH_IN_PROGRESS: another batch for the node runs, retry shortly; INGEST_ROLLED_BACK: all_or_none and a row failed (details has the row results)."+errorCodesHelp, b.IngestLeads)
	add(s, opts.Log, writes, "move_client", "Move a client's card to another stage of a pipeline. Moving to the stage it is already in skips it (skipped_count 1). "+
		"NOT_FOUND: the pipeline is unknown or the client has no active card on it; STAGE_NOT_IN_PIPELINE: the target stage is not of that pipeline; MOVE_NOT_ALLOWED: the current stage does not allow that target (details lists the allowed ones)."+errorCodesHelp, b.MoveClient)
	add(s, opts.Log, reads, "search_conversations", "Search the chat history (WhatsApp, phone, web) of the account: conversations with their client, status, summary and participants, newest first. Messages are not embedded unless include_messages; page one transcript with get_conversation_messages. "+
		"A page stops early when it would pass "+byteSize(MaxResultBytes)+": has_more and next_offset say where the next starts, and a conversation whose embedded messages were cut has has_more_messages true."+errorCodesHelp, b.SearchConversations)
	add(s, opts.Log, reads, "get_conversation_messages", "Read the messages of one conversation, oldest first (order desc for newest first), with its participants. "+
		"A page stops early when it would pass "+byteSize(MaxResultBytes)+": continue with offset next_offset while has_more (a single longer message is cut, its content ending in a note saying so). NOT_FOUND: no such conversation in this account."+errorCodesHelp, b.GetConversationMessages)
	return s
}

// access says whether a tool only reads.
type access bool

const (
	reads  access = true
	writes access = false
)

// add registers one tool. The SDK's typed AddTool would replace an error
// result's structured content with the zero output, so the tool is
// registered raw: its schemas come from In and Out, its arguments are
// validated against In's schema, and a refusal keeps its error body.
//
// An answer is bounded by MaxResultBytes (size.go): a paged answer is cut
// to fit, and a read still larger is refused. A write's answer is never
// refused (its effects are done); its arguments' caps bound it.
func add[In, Out any](s *sdk.Server, log *slog.Logger, acc access, name, description string, fn func(context.Context, In) (Out, error)) {
	if acc == reads {
		description += " PAYLOAD_TOO_LARGE: the answer would pass " + byteSize(MaxResultBytes) + "; ask for less (a lower limit, a narrower filter)."
	}
	inSchema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", name, err))
	}
	allowUnknown(inSchema) // unknown arguments are ignored, as unknown fields are (docs/contract.md, Conventions)
	outSchema, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %s: %v", name, err))
	}
	resolved, err := inSchema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %s: %v", name, err))
	}
	tool := &sdk.Tool{Name: name, Description: description, InputSchema: inSchema, OutputSchema: outSchema}
	if acc == reads {
		tool.Annotations = &sdk.ToolAnnotations{ReadOnlyHint: true}
	}
	s.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		raw := req.Params.Arguments
		if len(raw) == 0 || string(raw) == "null" {
			raw = json.RawMessage("{}")
		}
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil {
			return errorResult(invalid("arguments", "json_invalid", "Arguments should be a JSON object")), nil
		}
		if err := resolved.Validate(args); err != nil {
			return errorResult(invalid("arguments", "schema", err.Error())), nil
		}
		var in In
		if err := json.Unmarshal(raw, &in); err != nil {
			return errorResult(invalid("arguments", "type_error", err.Error())), nil
		}
		out, err := fn(ctx, in)
		if err != nil {
			if errs.Code(err) == errs.Internal && !isValidation(err) {
				log.Error("mcp tool failed", "tool", name, "err", err)
			}
			return errorResult(err), nil
		}
		b, err := fit(&out)
		if err != nil {
			return errorResult(err), nil
		}
		if acc == reads && len(b) > MaxResultBytes {
			return errorResult(tooLarge(name, len(b))), nil
		}
		return &sdk.CallToolResult{StructuredContent: json.RawMessage(b), Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
	})
}

// allowUnknown lets every object of the schema take properties it does not
// name.
func allowUnknown(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties != nil {
		s.AdditionalProperties = nil
	}
	for _, p := range s.Properties {
		allowUnknown(p)
	}
	allowUnknown(s.Items)
}

func isValidation(err error) bool {
	var verr valid.Error
	return errors.As(err, &verr)
}

// ErrorBody is the contract's error body, the structured content of a
// refused call.
type ErrorBody struct {
	Status    string `json:"status"`
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
	Details   any    `json:"details"`
}

// Body renders err as the contract's error body: an *errs.Error keeps its
// code, schema problems are VALIDATION_ERROR with details.errors, anything
// else is INTERNAL_ERROR without internals.
func Body(err error) ErrorBody {
	var (
		e    *errs.Error
		verr valid.Error
	)
	switch {
	case errors.As(err, &verr):
		return ErrorBody{Status: "error", ErrorCode: errs.ValidationError, Message: "The arguments are not valid: " + verr.Error(),
			Details: map[string]any{"errors": []valid.Problem(verr)}}
	case errors.As(err, &e):
		return ErrorBody{Status: "error", ErrorCode: e.Code, Message: e.Message, Details: e.Details}
	default:
		return ErrorBody{Status: "error", ErrorCode: errs.Internal, Message: "Internal server error. The call may be retried."}
	}
}

func errorResult(err error) *sdk.CallToolResult {
	body := Body(err)
	b, _ := json.Marshal(body)
	return &sdk.CallToolResult{IsError: true, StructuredContent: json.RawMessage(b),
		Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}
}

// invalid is one schema problem of the arguments.
func invalid(field, typ, msg string) error {
	return valid.Error{{Loc: []any{"arguments", field}, Type: typ, Msg: msg}}
}

// convert copies v into out through JSON: the types on both sides encode
// the API's JSON shapes.
func convert(v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if reflect.ValueOf(out).Kind() != reflect.Pointer {
		return fmt.Errorf("convert: %T is not a pointer", out)
	}
	return json.Unmarshal(b, out)
}
