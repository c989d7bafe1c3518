package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/frontdesk/frontdesk/client"
	"github.com/frontdesk/frontdesk/internal/calendar"
	"github.com/frontdesk/frontdesk/internal/chat"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
	"github.com/frontdesk/frontdesk/internal/valid"
	"github.com/frontdesk/frontdesk/internal/waitlist"
)

// Remote answers the tools through the public API with the Go client: the
// stdio mode of `frontdesk mcp`. The server applies every rule; the answers
// are converted into the same output types as Local's (both are the API's
// JSON shapes).
type Remote struct {
	c *client.Client
}

// NewRemote returns the backend calling the API through c.
func NewRemote(c *client.Client) *Remote { return &Remote{c: c} }

// ListServices implements Backend.
func (r *Remote) ListServices(ctx context.Context, _ ListServicesIn) (ListServicesOut, error) {
	out := ListServicesOut{Services: []calendar.Service{}}
	list, err := r.c.ListServices(ctx)
	if err != nil {
		return out, remoteErr(err)
	}
	return out, convert(list, &out.Services)
}

// FindSlots implements Backend.
func (r *Remote) FindSlots(ctx context.Context, in FindSlotsIn) (calendar.SlotList, error) {
	var out calendar.SlotList
	s, err := r.c.GetFreeSlots(ctx, client.FreeSlotsParams{ServiceID: in.ServiceID, ProfessionalIDs: in.ProfessionalIDs,
		StartDate: in.StartDate, Days: in.Days, Timezone: in.Timezone, Limit: in.Limit})
	if err != nil {
		return out, remoteErr(err)
	}
	return out, convert(s, &out)
}

// BookAppointment implements Backend: the input is the booking body, its
// recurrence included; a series answers series as Local does.
func (r *Remote) BookAppointment(ctx context.Context, in BookAppointmentIn) (BookAppointmentOut, error) {
	var (
		out BookAppointmentOut
		req client.BookingRequest
	)
	if err := convert(in, &req); err != nil {
		return out, err
	}
	b, err := r.c.Book(ctx, req)
	if err != nil {
		return out, remoteErr(err)
	}
	if err := convert(b.Appointment, &out.Appointment); err != nil {
		return out, err
	}
	out.ClientID, out.ClientCreated = b.ClientID, b.ClientCreated
	if b.Series != nil { // the request had a recurrence (docs/series.md)
		out.Series = &calendar.Series{}
		if err := convert(b.Series, out.Series); err != nil {
			return out, err
		}
	}
	return out, nil
}

// AddToWaitlist implements Backend: the input is the single-add body.
func (r *Remote) AddToWaitlist(ctx context.Context, in AddToWaitlistIn) (waitlist.AddResult, error) {
	var (
		out waitlist.AddResult
		req client.WaitlistAddRequest
	)
	if err := convert(in, &req); err != nil {
		return out, err
	}
	res, err := r.c.AddToWaitlist(ctx, req)
	if err != nil {
		return out, remoteErr(err)
	}
	return out, convert(res, &out)
}

// WaitlistSummary implements Backend.
func (r *Remote) WaitlistSummary(ctx context.Context, _ WaitlistSummaryIn) (waitlist.SummaryResult, error) {
	var out waitlist.SummaryResult
	res, err := r.c.GetWaitlistSummary(ctx)
	if err != nil {
		return out, remoteErr(err)
	}
	return out, convert(res, &out)
}

// ListPipelines implements Backend.
func (r *Remote) ListPipelines(ctx context.Context, in ListPipelinesIn) (ListPipelinesOut, error) {
	out := ListPipelinesOut{Pipelines: []PipelineWithStages{}}
	page, err := r.c.ListPipelines(ctx, client.PipelineFilter{Status: in.Status, Limit: in.Limit, Offset: in.Offset})
	if err != nil {
		return out, remoteErr(err)
	}
	out.Count, out.Limit, out.Offset = page.Count, page.Limit, page.Offset
	for _, p := range page.Data {
		var ps PipelineWithStages
		if err := convert(p, &ps.Pipeline); err != nil {
			return out, err
		}
		stages, err := r.c.ListStages(ctx, p.ID)
		if err != nil {
			return out, remoteErr(err)
		}
		ps.Stages = []pipeline.Stage{}
		if err := convert(stages, &ps.Stages); err != nil {
			return out, err
		}
		out.Pipelines = append(out.Pipelines, ps)
	}
	return out, nil
}

// IngestLeads implements Backend: the input is the batch body.
func (r *Remote) IngestLeads(ctx context.Context, in IngestLeadsIn) (pipeline.IngestResult, error) {
	var (
		out pipeline.IngestResult
		req client.IngestBatchRequest
	)
	if err := convert(in, &req); err != nil {
		return out, err
	}
	res, err := r.c.IngestBatch(ctx, in.InputNodeUUID, req)
	if err != nil {
		return out, remoteErr(err)
	}
	return out, convert(res, &out)
}

// MoveClient implements Backend.
func (r *Remote) MoveClient(ctx context.Context, in MoveClientIn) (pipeline.Result, error) {
	var out pipeline.Result
	res, err := r.c.MoveClient(ctx, in.PipelineID, in.ClientID, in.TargetStageID)
	if err != nil {
		return out, remoteErr(err)
	}
	return out, convert(res, &out)
}

// SearchConversations implements Backend.
func (r *Remote) SearchConversations(ctx context.Context, in SearchConversationsIn) (SearchConversationsOut, error) {
	out := SearchConversationsOut{}
	rep := &valid.Report{}
	f := client.ConversationFilter{ClientID: in.ClientID, Search: in.Search, DispositionTagIDs: in.DispositionTagIDs, Status: in.Status,
		Direction: in.Direction, SortBy: in.SortBy, Limit: in.Limit, Offset: in.Offset, IncludeMessages: client.Ptr(in.IncludeMessages),
		MaxMessagesPerSession: in.MaxMessagesPerSession}
	if in.CreatedAfter != "" {
		f.CreatedAfter, _ = valid.Timestamp(rep, in.CreatedAfter, "arguments", "created_after")
	}
	if in.CreatedBefore != "" {
		f.CreatedBefore, _ = valid.Timestamp(rep, in.CreatedBefore, "arguments", "created_before")
	}
	if in.UpdatedAfter != "" {
		f.UpdatedAfter, _ = valid.Timestamp(rep, in.UpdatedAfter, "arguments", "updated_after")
	}
	if err := rep.Err(); err != nil {
		return out, err
	}
	page, err := r.c.ListConversations(ctx, f)
	if err != nil {
		return out, remoteErr(err)
	}
	out.Count, out.Limit, out.Offset = page.Count, page.Limit, page.Offset
	if err := convert(page.Data, &out.Conversations); err != nil {
		return out, err
	}
	if out.Conversations == nil {
		out.Conversations = []chat.Conversation{}
	}
	return out, nil
}

// GetConversationMessages implements Backend.
func (r *Remote) GetConversationMessages(ctx context.Context, in GetConversationMessagesIn) (ConversationMessagesOut, error) {
	var out ConversationMessagesOut
	page, err := r.c.ListMessages(ctx, in.SessionID, client.MessageFilter{Limit: in.Limit, Offset: in.Offset, Order: in.Order})
	if err != nil {
		return out, remoteErr(err)
	}
	out.SessionID, out.Count, out.Limit, out.Offset = page.SessionID, page.Count, page.Limit, page.Offset
	if err := convert(page.Data, &out.Messages); err != nil {
		return out, err
	}
	if out.Messages == nil {
		out.Messages = []chat.Message{}
	}
	return out, convert(page.Participants, &out.Participants)
}

// remoteErr turns the API's answer into the error the tool renders: the
// envelope's code, message and details as sent; a 422's items as the
// validation problems.
func remoteErr(err error) error {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return err
	}
	if ce.StatusCode == http.StatusUnprocessableEntity && len(ce.Validation) > 0 {
		v := make(valid.Error, len(ce.Validation))
		for i, it := range ce.Validation {
			v[i] = valid.Problem{Loc: it.Loc, Msg: it.Msg, Type: it.Type}
		}
		return v
	}
	var details any
	if len(ce.Details) > 0 {
		_ = json.Unmarshal(ce.Details, &details)
	}
	return &errs.Error{Code: ce.ErrorCode, Message: ce.Message, Details: details}
}
