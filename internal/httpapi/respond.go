package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/valid"
)

// MaxBodyBytes is the largest request body accepted (decisions.md §1).
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Error("encode response", "err", err)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"status":"error","error_code":"INTERNAL_ERROR","message":"Internal server error","details":null}`+"\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
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
	if r.ContentLength > MaxBodyBytes {
		return nil, errs.New(errs.PayloadTooLarge, "The request body is larger than 5 MiB.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errs.New(errs.PayloadTooLarge, "The request body is larger than 5 MiB.")
		}
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
	if errors.As(err, &mbe) {
		return nil, errs.New(errs.PayloadTooLarge, "The request body is larger than 5 MiB.")
	}
	return body, err
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
