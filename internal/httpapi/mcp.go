package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/mcp"
)

// mcpHandler serves "/mcp" (decisions.md §9): the MCP door behind the same
// key check, rate-limit bucket, metrics and logs as the public API. Each
// request's tools are bound to the account of its key.
func (s *Server) mcpHandler() http.Handler {
	deps := mcp.Deps{DB: s.db, Clock: s.clock, Ingester: s.ingester}
	return s.RequireKey(mcp.Handler(deps, mcp.Options{Version: "v2", Log: s.log},
		func(r *http.Request) account.Account { return accountFrom(r.Context()) }))
}
