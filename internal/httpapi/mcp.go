package httpapi

import (
	"net/http"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/mcp"
)

// mcpHandler serves "/mcp" (docs/contract.md, MCP): the MCP door behind the same
// key check, rate-limit bucket, metrics and logs as the public API. Each
// request's tools are bound to the account of its key. A request body has
// the API's cap, and one request is one JSON-RPC message (mcp.Handler), so
// every tool call takes a token of the key's bucket.
func (s *Server) mcpHandler() http.Handler {
	deps := mcp.Deps{DB: s.db, Clock: s.clock, Ingester: s.ingester}
	return s.RequireKey(mcp.Handler(deps, mcp.Options{Version: "v2", Log: s.log, MaxBodyBytes: MaxBodyBytes},
		func(r *http.Request) account.Account { return accountFrom(r.Context()) }))
}
