// Package errs is Frontdesk's one error vocabulary. Domain packages return
// *errs.Error with a contract error code; the HTTP layer alone maps codes to
// status codes and envelopes. Any other error is an internal error: it is
// logged and never shown to the caller.
package errs

import (
	"errors"
	"fmt"
)

// Error codes of the public contract (docs/contract.md, Error codes).
const (
	NotFound             = "NOT_FOUND"
	MethodNotAllowed     = "METHOD_NOT_ALLOWED"
	ValidationError      = "VALIDATION_ERROR"
	ServiceNotFound      = "SERVICE_NOT_FOUND"
	ProfessionalNotFound = "PROFESSIONAL_NOT_FOUND"
	EventTypeNotFound    = "EVENT_TYPE_NOT_FOUND"
	AmbiguousMatch       = "AMBIGUOUS_MATCH"
	ClientNotFound       = "CLIENT_NOT_FOUND"
	InvalidPhone         = "INVALID_PHONE"
	InvalidTimezone      = "INVALID_TIMEZONE"
	InvalidTimeRange     = "INVALID_TIME_RANGE"
	NameRequired         = "NAME_REQUIRED"
	WaitlistInactive     = "WAITLIST_INACTIVE"
	NoActiveWaitlist     = "NO_ACTIVE_WAITLIST"
	ServiceNotInWaitlist = "SERVICE_NOT_IN_WAITLIST"
	StageNotInPipeline   = "STAGE_NOT_IN_PIPELINE"
	InputNodeInactive    = "INPUT_NODE_INACTIVE"
	BatchInProgress      = "BATCH_IN_PROGRESS"
	IdempotencyReused    = "IDEMPOTENCY_KEY_REUSED"
	IdempotencyBusy      = "IDEMPOTENCY_IN_PROGRESS"
	IngestRowFailed      = "INGEST_ROW_FAILED"
	ImportHasErrors      = "IMPORT_HAS_ERRORS"
	IngestRolledBack     = "INGEST_ROLLED_BACK"
	MoveNotAllowed       = "MOVE_NOT_ALLOWED"
	PayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	RateLimited          = "RATE_LIMITED"
	// Patients act on their own (docs/patients.md): the patient API and
	// the manage links refuse where the public API warns.
	SlotNotAvailable    = "SLOT_NOT_AVAILABLE"
	VerificationFailed  = "VERIFICATION_FAILED"
	BookingLimitReached = "BOOKING_LIMIT_REACHED"
	ChangeNotAllowed    = "CHANGE_NOT_ALLOWED"
	Internal            = "INTERNAL_ERROR"
	// Forbidden is a provider callback whose signature does not verify
	// (docs/contract.md, Provider callbacks): 403, nothing changes.
	Forbidden = "FORBIDDEN"
)

// Error is an error the caller is meant to see: a contract code, a human
// message and optional structured details. Key and Args are the message
// before formatting: the English format string, which is also the key of
// the message in every language catalogue, and its arguments, so a door
// can say the message in its reader's language (Message stays English: it
// is what the API answers).
type Error struct {
	Code    string
	Message string
	Details any
	Key     string
	Args    []any
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New returns an *Error with a formatted message and no details.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Key: format, Args: args}
}

// WithDetails returns an *Error carrying details.
func WithDetails(code string, details any, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Details: details, Key: format, Args: args}
}

// Localize says err's message through translate, which returns the text of
// a catalogue key in the reader's language (or the key itself when the
// catalogue has none). An *Error built without a key (a literal) is said
// as its Message.
func (e *Error) Localize(translate func(key string) string) string {
	if e.Key == "" {
		return translate(e.Message)
	}
	return fmt.Sprintf(translate(e.Key), localizeArgs(e.Args, translate)...)
}

// Code returns the contract code of err, or Internal when err is not an *Error.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err is an *Error with the given code.
func Is(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Text is a sentence said in the reader's language: a catalogue key (the
// English format string) and its arguments. As an argument of New or
// WithDetails it reads as its English text in Message, and Localize says
// it in the reader's language.
type Text struct {
	Key  string
	Args []any
}

// Say returns the Text of key with args.
func Say(key string, args ...any) Text { return Text{Key: key, Args: args} }

// String is the English text.
func (t Text) String() string { return fmt.Sprintf(t.Key, t.Args...) }

// Error lets a Text travel as an error where a function returns one (the
// English text).
func (t Text) Error() string { return t.String() }

// Localize says t through translate (see Error.Localize).
func (t Text) Localize(translate func(key string) string) string {
	return fmt.Sprintf(translate(t.Key), localizeArgs(t.Args, translate)...)
}

func localizeArgs(args []any, translate func(string) string) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(Text); ok {
			a = t.Localize(translate)
		}
		out[i] = a
	}
	return out
}
