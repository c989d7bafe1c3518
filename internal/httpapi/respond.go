package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"syscall"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/jsontext"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// MaxBodyBytes is the largest request body accepted (docs/contract.md, Limits).
const MaxBodyBytes = 5 << 20

// statusOf maps contract error codes to HTTP statuses; every code not listed
// is a 400.
var statusOf = map[string]int{
	errs.NotFound:          http.StatusNotFound,
	errs.MethodNotAllowed:  http.StatusMethodNotAllowed,
	errs.WaitlistInactive:  http.StatusConflict,
	errs.InputNodeInactive: http.StatusConflict,
	errs.BatchInProgress:   http.StatusConflict,
	errs.IdempotencyBusy:   http.StatusConflict,
	errs.PayloadTooLarge:   http.StatusRequestEntityTooLarge,
	errs.RateLimited:       http.StatusTooManyRequests,
	errs.Internal:          http.StatusInternalServerError,
	errs.Forbidden:         http.StatusForbidden,
	errs.ChangeNotAllowed:  http.StatusConflict,
}

// ErrorBody is the calendar error envelope.
type ErrorBody struct {
	Status    string `json:"status"`
	ErrorCode string `json:"error_code"`
	Message   string `json:"message"`
	Details   any    `json:"details"`
}

// writeJSON encodes v fully before writing the header, so an encoding
// failure can still become a clean 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := encodeJSON(v)
	if err != nil {
		slog.Error("encode response", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"status":"error","error_code":"INTERNAL_ERROR","message":"Internal server error","details":null}`+"\n")
		return
	}
	writeEncoded(w, status, body)
}

// jsonAppender is a body that writes itself without reflection (the
// 500-row ingest answer), byte for byte as encoding/json would.
type jsonAppender interface {
	AppendJSON([]byte) ([]byte, error)
}

// encodeJSON is every response body's encoding: no HTML escaping, one
// trailing newline.
func encodeJSON(v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		body, err := a.AppendJSON(make([]byte, 0, 64<<10))
		if err != nil {
			return nil, err
		}
		return append(body, '\n'), nil
	}
	body, err := jsontext.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(body, '\n'), nil
}

// writeEncoded writes a body encodeJSON made.
func writeEncoded(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// writeError turns any error into the contract's envelope. Errors that are
// not the caller's to see are logged with the request id and answered with
// a bare INTERNAL_ERROR.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		verr valid.Error
		e    *errs.Error
		mbe  *http.MaxBytesError
	)
	switch {
	case abandoned(r, err):
		// Nothing is written: nobody is there to read it. observe logs
		// and counts 499 and drops the connection.
		logFrom(r).Info("client disconnected", "err", err)
		if info, ok := r.Context().Value(keyInfo).(*requestInfo); ok {
			info.clientGone = true
		}
	case errors.As(err, &verr):
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []valid.Problem(verr)})
	case errors.As(err, &e):
		status, ok := statusOf[e.Code]
		if !ok {
			status = http.StatusBadRequest
		}
		writeJSON(w, status, ErrorBody{Status: "error", ErrorCode: e.Code, Message: e.Message, Details: e.Details})
	case errors.As(err, &mbe):
		writeJSON(w, http.StatusRequestEntityTooLarge, ErrorBody{Status: "error", ErrorCode: errs.PayloadTooLarge,
			Message: "The request body is larger than 5 MiB."})
	default:
		logFrom(r).Error("internal error", "err", err)
		writeJSON(w, http.StatusInternalServerError, ErrorBody{Status: "error", ErrorCode: errs.Internal,
			Message: "Internal server error. The request may be retried."})
	}
}

// readJSON reads a JSON body of at most MaxBodyBytes into an untyped tree.
// An empty body is nil when optional is true.
func readJSON(w http.ResponseWriter, r *http.Request, optional bool) (any, error) {
	body, err := readRaw(w, r)
	if err != nil {
		return nil, err
	}
	if optional && len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	return valid.ParseJSON(body)
}

// readRaw reads a body of at most MaxBodyBytes without parsing it.
func readRaw(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.ContentLength > MaxBodyBytes {
		return nil, errs.New(errs.PayloadTooLarge, "The request body is larger than 5 MiB.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &mbe):
		return nil, errs.New(errs.PayloadTooLarge, "The request body is larger than 5 MiB.")
	case errors.Is(err, http.ErrBodyReadAfterClose):
		return nil, err // the server's own mistake
	}
	// The client hung up mid-body (unexpected EOF), reset the connection or
	// stopped sending: it is gone. Anything else (a malformed chunked body
	// from a client still there) is the client's mistake and gets an answer.
	var ne net.Error
	if r.Context().Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &ne) {
		return nil, clientGone{err}
	}
	return nil, errs.New(errs.ValidationError, "The request body could not be read: %v.", err)
}

// checkQueryString refuses a query string that Go cannot parse whole: a 422
// at ['query'] (see valid.ParseQuery). A body over the limit announced in
// Content-Length is still a 413 first, as the order of checks asks.
func checkQueryString(r *http.Request) error {
	if r.URL.RawQuery == "" {
		return nil
	}
	if _, err := valid.ParseQuery(r.URL.RawQuery); err != nil {
		if r.ContentLength > MaxBodyBytes {
			return errs.New(errs.PayloadTooLarge, "The request body is larger than 5 MiB.")
		}
		return err
	}
	return nil
}

// clientGone is a request the client abandoned: logged and counted as 499
// (nginx's "client closed request"), never as a 5xx.
type clientGone struct{ err error }

func (e clientGone) Error() string { return "client disconnected: " + e.err.Error() }
func (e clientGone) Unwrap() error { return e.err }

// clientLeft reports whether writeError found the request abandoned.
func clientLeft(r *http.Request) bool {
	info, ok := r.Context().Value(keyInfo).(*requestInfo)
	return ok && info.clientGone
}

// abandoned reports whether err ends a request the client gave up: a body
// it stopped sending, or any failure once the request's context was
// cancelled (the server cancels it when the connection closes; the server's
// own request timeout is a deadline, not a cancellation, and stays a 500).
func abandoned(r *http.Request, err error) bool {
	var cg clientGone
	return errors.As(err, &cg) || errors.Is(r.Context().Err(), context.Canceled)
}

// readObject reads a required JSON object body into rep's reader, located
// at ['body', …].
func readObject(w http.ResponseWriter, r *http.Request, rep *valid.Report) (*valid.Object, any, error) {
	body, err := readJSON(w, r, false)
	if err != nil {
		return nil, nil, err
	}
	return rep.Object(body, "model_type", "body"), body, nil
}
