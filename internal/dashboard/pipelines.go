package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/pipeline"
)

// maxBoardCards bounds one board render; a bigger pipeline shows the newest
// arrivals of each stage first (ListClients' order) and says so.
const maxBoardCards = 1000

type column struct {
	Stage pipeline.Stage
	Cards []pipeline.CardView
}

type boardView struct {
	Pipeline  pipeline.Pipeline
	Stages    []pipeline.Stage
	Columns   []column
	Total     int
	Truncated bool
	Nodes     []pipeline.InputNode
	Users     []pipeline.UserRef
	BaseURL   string
}

func (boardView) isPage() {}

// pipelinesView is the list of the account's pipelines.
type pipelinesView struct {
	Pipelines []pipeline.Pipeline
}

func (pipelinesView) isPage() {}

// pipelinesPage handles "GET /app/pipelines".
func (d *Dashboard) pipelinesPage(w http.ResponseWriter, r *http.Request, s *session) error {
	list, _, err := pipeline.ListPipelines(r.Context(), d.db, s.Account, pipeline.Filter{Limit: 500})
	if err != nil {
		return err
	}
	if len(list) == 1 && r.URL.Query().Get("all") == "" {
		http.Redirect(w, r, fmt.Sprintf("%spipelines/%d", Prefix, list[0].ID), http.StatusSeeOther)
		return nil
	}
	d.render(w, r, s, http.StatusOK, "pipelines", "Pipelines", "pipelines", pipelinesView{Pipelines: list})
	return nil
}

func (d *Dashboard) findPipeline(r *http.Request, s *session, id int64) (pipeline.Pipeline, error) {
	list, _, err := pipeline.ListPipelines(r.Context(), d.db, s.Account, pipeline.Filter{Limit: 1000})
	if err != nil {
		return pipeline.Pipeline{}, err
	}
	for _, p := range list {
		if p.ID == id {
			return p, nil
		}
	}
	return pipeline.Pipeline{}, notFound("Pipeline", id)
}

// boardPage handles "GET /app/pipelines/{pipeline_id}": the stages as
// columns with their cards, and the pipeline's API input nodes.
func (d *Dashboard) boardPage(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "pipeline_id")
	if err != nil {
		return err
	}
	p, err := d.findPipeline(r, s, id)
	if err != nil {
		return err
	}
	ctx := r.Context()
	stages, err := pipeline.ListStages(ctx, d.db, s.Account, id)
	if err != nil {
		return err
	}
	cards, total, err := pipeline.ListClients(ctx, d.db, s.Account, id, pipeline.ClientFilter{Limit: maxBoardCards})
	if err != nil {
		return err
	}
	v := boardView{Pipeline: p, Stages: stages, Total: total, Truncated: total > len(cards)}
	byStage := map[int64]int{}
	for i, st := range stages {
		byStage[st.ID] = i
		v.Columns = append(v.Columns, column{Stage: st})
	}
	for _, c := range cards {
		if i, ok := byStage[c.StageID]; ok {
			v.Columns[i].Cards = append(v.Columns[i].Cards, c)
		}
	}
	if v.Nodes, err = pipeline.ListInputNodes(ctx, d.db, s.Account, id); err != nil {
		return err
	}
	if v.Users, err = pipeline.Users(ctx, d.db, s.Account); err != nil {
		return err
	}
	scheme := "http"
	if isTLS(r) {
		scheme = "https"
	}
	v.BaseURL = scheme + "://" + r.Host
	d.renderTitled(w, r, s, http.StatusOK, "board", p.Name, "pipelines", v)
	return nil
}

// moveCard handles "POST /app/pipelines/{pipeline_id}/move" with the same
// use case as the API's move, so the same stage rules apply and a refused
// move comes back with the API's reason.
func (d *Dashboard) moveCard(w http.ResponseWriter, r *http.Request, s *session) error {
	id, err := pathID(r, "pipeline_id")
	if err != nil {
		return err
	}
	clientID, err := formID(r, "client_id", "client")
	if err != nil {
		return err
	}
	target, err := formID(r, "target_stage_id", "stage")
	if err != nil {
		return err
	}
	if _, err := pipeline.ListStages(r.Context(), d.db, s.Account, id); err != nil {
		return err // another account's pipeline: 404
	}
	res, err := pipeline.MoveClientFrom(r.Context(), d.db, s.Account, id, clientID, target, pipeline.SourceDashboard, d.clock.Now())
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			// An unknown stage or a card that left the board meanwhile is
			// a stale board, not a missing page.
			return errs.New(errs.ValidationError, "%s", s.Err(err.(*errs.Error)))
		}
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%spipelines/%d", Prefix, id), "ok", s.Say(res.Said))
	return nil
}

// cardView is a card's page: its timeline in its pipeline.
type cardView struct {
	Card     pipeline.Card
	Pipeline pipeline.Pipeline
}

func (cardView) isPage() {}

// cardPage handles "GET /app/pipelines/{pipeline_id}/cards/{card_id}".
func (d *Dashboard) cardPage(w http.ResponseWriter, r *http.Request, s *session) error {
	pid, err := pathID(r, "pipeline_id")
	if err != nil {
		return err
	}
	cid, err := pathID(r, "card_id")
	if err != nil {
		return err
	}
	c, err := pipeline.CardTimeline(r.Context(), d.db, s.Account, pid, cid)
	if err != nil {
		return err
	}
	p, err := d.findPipeline(r, s, pid)
	if err != nil {
		return err
	}
	d.renderTitled(w, r, s, http.StatusOK, "card", c.ClientName+" · "+p.Name, "pipelines", cardView{Card: c, Pipeline: p})
	return nil
}

// Input nodes are the account's integration settings: only owners create,
// retire or reactivate one (ownerAction), and each change is audited,
// naming the node (its UUID, name and pipeline; an ingest call still needs
// an API key, which the entry never holds).

// nodeSummary is an input node's audit summary.
func nodeSummary(name string, pipelineID int64) string {
	return "name " + strings.TrimSpace(name) + "; pipeline " + strconv.FormatInt(pipelineID, 10)
}

// createNode handles "POST /app/pipelines/{pipeline_id}/nodes".
func (d *Dashboard) createNode(w http.ResponseWriter, r *http.Request, s *session) error {
	pid, err := pathID(r, "pipeline_id")
	if err != nil {
		return err
	}
	target, err := formID(r, "target_stage_id", "target stage")
	if err != nil {
		return err
	}
	in := pipeline.NodeInput{Name: r.PostForm.Get("name"), TargetStageID: target, Strategy: r.PostForm.Get("strategy")}
	if v := strings.TrimSpace(r.PostForm.Get("default_lead_value")); v != "" {
		f, ok := contact.ParseLeadValue(v)
		if !ok {
			return errs.New(errs.ValidationError, "The default lead value must be a number of zero or more.")
		}
		in.DefaultLeadValue = f
	}
	if len(r.PostForm["pool"]) > maxPool {
		return errs.New(errs.ValidationError, "An assignment pool may have at most %d team members.", maxPool)
	}
	for _, v := range r.PostForm["pool"] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return errs.New(errs.ValidationError, "The assignment pool names an unknown team member.")
		}
		in.Pool = append(in.Pool, id)
	}
	var uuid string
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		if uuid, err = pipeline.CreateAPINode(r.Context(), tx, s.Account, pid, in, d.clock.Now()); err != nil {
			return "", "", "", "", err
		}
		return "created", "input_node", uuid, nodeSummary(in.Name, pid), nil
	})
	if err != nil {
		return err
	}
	d.redirect(w, r, fmt.Sprintf("%spipelines/%d#nodes", Prefix, pid), "ok", s.Translate("Input node created. Its ingest path is %s", pipeline.IngestPathPrefix+uuid+"/batch"))
	return nil
}

// toggleNode handles "POST /app/pipelines/{pipeline_id}/nodes/{uuid}/active".
func (d *Dashboard) toggleNode(w http.ResponseWriter, r *http.Request, s *session) error {
	pid, err := pathID(r, "pipeline_id")
	if err != nil {
		return err
	}
	active := r.PostForm.Get("active") == "true"
	node := r.PathValue("uuid")
	if !utf8.ValidString(node) || strings.ContainsRune(node, 0) || len(node) > 64 {
		return notFound("Input node", node) // never reaches SQL (a NUL is an error on PostgreSQL)
	}
	err = d.audited(r.Context(), s, func(tx *db.Tx) (string, string, string, string, error) {
		name, changed, err := pipeline.SetNodeActive(r.Context(), tx, s.Account, pid, node, active)
		if err != nil || !changed {
			return "", "", "", "", err
		}
		action := "deactivated"
		if active {
			action = "reactivated"
		}
		return action, "input_node", node, nodeSummary(name, pid), nil
	})
	if err != nil {
		return err
	}
	msg := s.Translate("Input node deactivated: ingest through it is refused.")
	if active {
		msg = s.Translate("Input node activated.")
	}
	d.redirect(w, r, fmt.Sprintf("%spipelines/%d#nodes", Prefix, pid), "ok", msg)
	return nil
}
