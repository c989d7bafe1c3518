package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/frontdesk/frontdesk/internal/account"
)

// codeInvalidRequest is JSON-RPC's "Invalid Request" error code.
const codeInvalidRequest = -32600

// Handler serves MCP's Streamable HTTP transport. accountOf reads the
// authenticated account of a request (the caller authenticates before this
// handler runs). The handler is stateless: every HTTP request builds a
// server for its own account, so a session id can never carry one key's
// account into another key's request, and any instance can answer.
//
// One HTTP request carries one JSON-RPC message (README.md, "AI agents
// (MCP)"): a batch is refused before the SDK reads it, so the caller's
// rate-limit token per request is a token per tool call.
func Handler(deps Deps, opts Options, accountOf func(*http.Request) account.Account) http.Handler {
	max := opts.MaxBodyBytes
	if max <= 0 {
		max = sdk.DefaultMaxRequestBodyBytes
	}
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		return NewServer(NewLocal(deps, accountOf(r)), opts)
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: max})
	return singleRequests(h, max)
}

// singleRequests reads a POST's body of at most max bytes and refuses a
// JSON-RPC batch (a JSON array, after optional whitespace) with 400 and
// -32600, as protocol revision 2025-06-18 does whatever version the client
// claims; a larger body is 413, like the API's. Anything else reaches next
// with its body intact. Other methods pass through (the SDK answers them).
func singleRequests(next http.Handler, max int64) http.Handler {
	tooLarge := fmt.Sprintf("The request body is larger than %s.", byteSize(max))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		if r.ContentLength > max {
			refuse(w, http.StatusRequestEntityTooLarge, tooLarge)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			refuse(w, http.StatusRequestEntityTooLarge, tooLarge)
			return
		case err != nil:
			refuse(w, http.StatusBadRequest, "The request body could not be read.")
			return
		case isBatch(body):
			refuse(w, http.StatusBadRequest, "JSON-RPC batches are not accepted: send one request per HTTP POST (MCP protocol revision 2025-06-18).")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// isBatch reports a body whose first character past JSON whitespace opens
// an array.
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// refuse answers a JSON-RPC Invalid Request error with no id: the request
// was not read far enough to know one.
func refuse(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": codeInvalidRequest, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// byteSize renders n bytes for a message: "5 MiB" when it is whole MiB.
func byteSize(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
