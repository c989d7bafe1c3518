package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/clock"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/valid"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// Deps are what the local tools need beside the account.
type Deps struct {
	DB       *db.DB
	Clock    clock.Clock
	Ingester *pipeline.Ingester
}

// Local answers the tools with the area packages for one account: the
// account is fixed when the backend is built, so no tool can reach another
// account's data.
type Local struct {
	deps Deps
	acct account.Account
}

// NewLocal returns the backend of acct.
func NewLocal(deps Deps, acct account.Account) *Local {
	if deps.Clock == nil {
		deps.Clock = clock.System{}
	}
	return &Local{deps: deps, acct: acct}
}

func (l *Local) now() time.Time { return l.deps.Clock.Now() }

// ListServices implements Backend.
func (l *Local) ListServices(ctx context.Context, _ ListServicesIn) (ListServicesOut, error) {
	list, err := calendar.ListServices(ctx, l.deps.DB, l.acct)
	if list == nil {
		list = []calendar.Service{}
	}
	return ListServicesOut{Services: list}, err
}

// FindSlots implements Backend.
func (l *Local) FindSlots(ctx context.Context, in FindSlotsIn) (calendar.SlotList, error) {
	rep := &valid.Report{}
	sq := calendar.SlotsQuery{ServiceID: in.ServiceID, Timezone: in.Timezone,
		Days:  orDefault(rep, in.Days, calendar.SlotDaysDefault, 1, calendar.SlotDaysMax, "days"),
		Limit: orDefault(rep, in.Limit, calendar.SlotLimitDefault, 1, calendar.SlotLimitMax, "limit")}
	sq.ProfessionalIDs = valid.IDs(rep, in.ProfessionalIDs, calendar.MaxSlotProfessionals, "arguments", "professional_ids")
	if in.StartDate != "" {
		sq.StartDate, _ = valid.Date(rep, in.StartDate, "arguments", "start_date")
		calendar.CheckWindow(rep, sq.StartDate, sq.Days, "arguments", "start_date")
	}
	if err := rep.Err(); err != nil {
		return calendar.SlotList{}, err
	}
	return calendar.ListFreeSlots(ctx, l.deps.DB, l.acct, sq, l.now())
}

// BookAppointment implements Backend.
func (l *Local) BookAppointment(ctx context.Context, in BookAppointmentIn) (BookAppointmentOut, error) {
	// The arguments are read as the API reads its body, by the one decoder.
	rep := &valid.Report{}
	o := objectOf(rep, in)
	req := calendar.DecodeBooking(o)
	rec := calendar.DecodeRecurrence(o, req.StartAt)
	if err := rep.Err(); err != nil {
		return BookAppointmentOut{}, err
	}
	if rec != nil {
		return l.bookSeries(ctx, req, *rec)
	}
	b, err := calendar.Book(ctx, l.deps.DB, l.acct, req, l.now())
	if err != nil {
		return BookAppointmentOut{}, err
	}
	return BookAppointmentOut{Appointment: b.Appointment, ClientID: b.ClientID, ClientCreated: b.ClientCreated}, nil
}

// AddToWaitlist implements Backend. The preferences are read by the same
// reader as the API's body.
func (l *Local) AddToWaitlist(ctx context.Context, in AddToWaitlistIn) (waitlist.AddResult, error) {
	rep := &valid.Report{}
	req := waitlist.AddRequest{ClientID: in.ClientID, Phone: strings.TrimSpace(in.Phone), FirstName: in.FirstName, LastName: in.LastName,
		Email: in.Email, WaitlistID: in.WaitlistID, ServiceIDs: in.ServiceIDs, ServiceNames: in.ServiceNames}
	maxLen(rep, in.Phone, waitlist.MaxPhoneLen, "phone")
	maxLen(rep, in.FirstName, waitlist.MaxNameLen, "first_name")
	maxLen(rep, in.LastName, waitlist.MaxNameLen, "last_name")
	maxLen(rep, in.Email, waitlist.MaxEmailLen, "email")
	valid.Len(rep, len(in.ServiceIDs), 0, waitlist.MaxServices, "arguments", "service_ids")
	if valid.Len(rep, len(in.ServiceNames), 0, waitlist.MaxServices, "arguments", "service_names") {
		for i, n := range in.ServiceNames {
			maxLen(rep, n, waitlist.MaxServiceNameLen, "service_names", i)
		}
	}
	req.Prefs = waitlist.ReadPrefs(objectOf(rep, in))
	if in.ClientID == nil && req.Phone == "" {
		rep.Add([]any{"arguments", "phone"}, "missing", "Field required: give client_id or phone")
	}
	if len(in.ServiceIDs) == 0 && len(in.ServiceNames) == 0 {
		rep.Add([]any{"arguments", "service_ids"}, "missing", "Field required: give service_ids or service_names")
	}
	if err := rep.Err(); err != nil {
		return waitlist.AddResult{}, err
	}
	res, err := waitlist.Add(ctx, l.deps.DB, l.acct, req, l.now())
	if err != nil {
		return waitlist.AddResult{}, err
	}
	return *res, nil
}

// WaitlistSummary implements Backend.
func (l *Local) WaitlistSummary(ctx context.Context, _ WaitlistSummaryIn) (waitlist.SummaryResult, error) {
	res, err := waitlist.Summarize(ctx, l.deps.DB, l.acct, l.now())
	if err != nil {
		return waitlist.SummaryResult{}, err
	}
	return *res, nil
}

// ListPipelines implements Backend.
func (l *Local) ListPipelines(ctx context.Context, in ListPipelinesIn) (ListPipelinesOut, error) {
	rep := &valid.Report{}
	out := ListPipelinesOut{Limit: orDefault(rep, in.Limit, pipeline.DefaultLimit, 1, pipeline.MaxLimit, "limit"), Offset: in.Offset, Pipelines: []PipelineWithStages{}}
	valid.InRange(rep, int64(in.Offset), 0, valid.MaxOffset, "arguments", "offset")
	maxLen(rep, in.Status, pipeline.MaxStatusLen, "status")
	if err := rep.Err(); err != nil {
		return out, err
	}
	// The API's catalogue reads: a page of 200 pipelines is not 201 queries.
	list, count, err := pipeline.Pipelines(ctx, l.deps.DB, l.acct, pipeline.Filter{Status: in.Status, Limit: out.Limit, Offset: in.Offset}, l.now())
	if err != nil {
		return out, err
	}
	out.Count = count
	for _, p := range list {
		stages, err := pipeline.Stages(ctx, l.deps.DB, l.acct, p.ID, l.now())
		if err != nil {
			return out, err
		}
		if stages == nil {
			stages = []pipeline.Stage{}
		}
		out.Pipelines = append(out.Pipelines, PipelineWithStages{Pipeline: p, Stages: stages})
	}
	return out, nil
}

// IngestLeads implements Backend: the rows go through the API's row parser.
func (l *Local) IngestLeads(ctx context.Context, in IngestLeadsIn) (pipeline.IngestResult, error) {
	rep := &valid.Report{}
	uuid, _ := valid.UUID(rep, in.InputNodeUUID, "arguments", "input_node_uuid")
	valid.Len(rep, len(in.Clients), 1, pipeline.MaxBatchRows, "arguments", "clients")
	req := pipeline.IngestRequest{NodeUUID: uuid, OnDuplicate: pipeline.OnDuplicateUpdate, AllOrNone: in.AllOrNone, DryRun: in.DryRun,
		TriggerAutomations: in.TriggerAutomations == nil || *in.TriggerAutomations, StageID: in.StageID}
	if in.OnDuplicate != "" {
		req.OnDuplicate, _ = valid.Literal(rep, in.OnDuplicate, []string{pipeline.OnDuplicateUpdate, pipeline.OnDuplicateSkip, pipeline.OnDuplicateFail}, "arguments", "on_duplicate")
	}
	if d := in.Defaults; d != nil {
		maxLen(rep, d.AreaCode, pipeline.MaxAreaCodeLen, "defaults", "area_code")
		maxLen(rep, d.Timezone, pipeline.MaxTimezoneLen, "defaults", "timezone")
		req.Defaults = pipeline.Defaults{AreaCode: d.AreaCode, Timezone: d.Timezone, Data: d.Data}
		var tags []any
		if valid.Len(rep, len(d.Tags), 0, pipeline.MaxTags, "arguments", "defaults", "tags") && convert(d.Tags, &tags) == nil && len(tags) > 0 {
			req.Defaults.Tags = pipeline.ParseTags(rep, tags, "arguments", "defaults", "tags")
		}
	}
	if err := rep.Err(); err != nil {
		return pipeline.IngestResult{}, err
	}
	if err := pipeline.CheckDefaults(req.Defaults); err != nil {
		return pipeline.IngestResult{}, err
	}
	var rows []map[string]any
	if err := convert(in.Clients, &rows); err != nil {
		return pipeline.IngestResult{}, err
	}
	req.Rows = pipeline.ParseRows(rows, req.Defaults)
	res, err := l.deps.Ingester.Ingest(ctx, l.acct, req, l.now())
	if err != nil {
		return pipeline.IngestResult{}, err
	}
	return *res, nil
}

// MoveClient implements Backend.
func (l *Local) MoveClient(ctx context.Context, in MoveClientIn) (pipeline.Result, error) {
	return pipeline.MoveClient(ctx, l.deps.DB, l.acct, in.PipelineID, in.ClientID, in.TargetStageID, l.now())
}

// SearchConversations implements Backend.
func (l *Local) SearchConversations(ctx context.Context, in SearchConversationsIn) (SearchConversationsOut, error) {
	rep := &valid.Report{}
	f := chat.Filter{ClientID: in.ClientID, Search: in.Search, SortBy: "created_at", Desc: true,
		Limit: orDefault(rep, in.Limit, chat.DefaultLimit, 1, chat.MaxLimit, "limit"), Offset: in.Offset}
	f.DispositionTagIDs = valid.IDs(rep, in.DispositionTagIDs, chat.MaxDispositionTags, "arguments", "disposition_tag_ids")
	f.IncludeMessages = in.IncludeMessages
	f.MaxMessages = orDefault(rep, in.MaxMessagesPerSession, chat.DefaultMaxMessages, 1, chat.MaxMaxMessages, "max_messages_per_session")
	valid.InRange(rep, int64(in.Offset), 0, valid.MaxOffset, "arguments", "offset")
	maxLen(rep, in.Search, chat.MaxSearchLen, "search")
	if in.Status != "" {
		f.Status, _ = valid.Literal(rep, in.Status, chat.Statuses, "arguments", "status")
	}
	if in.Direction != "" {
		f.Direction, _ = valid.Literal(rep, in.Direction, chat.Directions, "arguments", "direction")
	}
	if in.SortBy != "" {
		if s, ok := valid.Literal(rep, in.SortBy, chat.SortValues(), "arguments", "sort_by"); ok {
			f.SortBy, f.Desc = chat.ParseSort(s)
		}
	}
	for _, t := range []struct {
		v    string
		dst  *time.Time
		name string
	}{{in.CreatedAfter, &f.CreatedAfter, "created_after"}, {in.CreatedBefore, &f.CreatedBefore, "created_before"}, {in.UpdatedAfter, &f.UpdatedAfter, "updated_after"}} {
		if t.v != "" {
			*t.dst, _ = valid.Timestamp(rep, t.v, "arguments", t.name)
		}
	}
	if err := rep.Err(); err != nil {
		return SearchConversationsOut{}, err
	}
	page, err := chat.ListPage(ctx, l.deps.DB, l.acct, f)
	if err != nil {
		return SearchConversationsOut{}, err
	}
	out := SearchConversationsOut{Conversations: page.Conversations, Count: page.Count, Limit: f.Limit, Offset: f.Offset}
	if out.Conversations == nil {
		out.Conversations = []chat.Conversation{}
	}
	return out, nil
}

// GetConversationMessages implements Backend.
func (l *Local) GetConversationMessages(ctx context.Context, in GetConversationMessagesIn) (ConversationMessagesOut, error) {
	rep := &valid.Report{}
	limit := orDefault(rep, in.Limit, chat.DefaultMessagesLimit, 1, chat.MaxMessagesLimit, "limit")
	valid.InRange(rep, int64(in.Offset), 0, valid.MaxOffset, "arguments", "offset")
	if in.Order != "" {
		valid.Literal(rep, in.Order, []string{"asc", "desc"}, "arguments", "order")
	}
	if err := rep.Err(); err != nil {
		return ConversationMessagesOut{}, err
	}
	page, err := chat.ListMessages(ctx, l.deps.DB, l.acct, in.SessionID, limit, in.Offset, in.Order == "desc")
	if err != nil {
		return ConversationMessagesOut{}, err
	}
	out := ConversationMessagesOut{SessionID: page.SessionID, Messages: page.Messages, Count: page.Count, Limit: limit, Offset: in.Offset, Participants: page.Participants}
	if out.Messages == nil {
		out.Messages = []chat.Message{}
	}
	return out, nil
}

// orDefault is v, or def when v is 0 (not sent); out of [lo, hi] it is a
// problem at ['arguments', name].
func orDefault(rep *valid.Report, v, def, lo, hi int, name string) int {
	if v == 0 {
		return def
	}
	valid.InRange(rep, int64(v), int64(lo), int64(hi), "arguments", name)
	return v
}

// maxLen reports a string longer than max characters at ['arguments', at...].
func maxLen(rep *valid.Report, s string, max int, at ...any) {
	valid.String(rep, s, max, append([]any{"arguments"}, at...)...)
}

// objectOf reads v as the API's untyped body at ['arguments'], for the area
// readers that take one. v is always encodable (a tool's input struct); if
// it were not, the problem is reported rather than read as nothing.
func objectOf(rep *valid.Report, v any) *valid.Object {
	b, err := json.Marshal(v)
	if err != nil {
		return rep.Object(nil, "model_type", "arguments")
	}
	body, err := valid.ParseJSON(b)
	if err != nil {
		return rep.Object(nil, "model_type", "arguments")
	}
	return rep.Object(body, "model_type", "arguments")
}
