package channels

import (
	"strings"
	"unicode"

	"github.com/frontdesk/frontdesk/internal/names"
)

// Intent is what a reply asks for.
type Intent int

const (
	IntentNone  Intent = iota // just a chat message
	IntentYes                 // confirm / accept
	IntentNo                  // decline / release
	IntentStop                // opt out of the channel
	IntentStart               // opt back in
)

func (i Intent) String() string {
	return [...]string{"none", "yes", "no", "stop", "start"}[i]
}

// The reply words (docs/contract.md, Replies that act), folded. Both languages' sets are
// always accepted, whatever the account's language.
var intents = map[string]Intent{
	"si": IntentYes, "confirmo": IntentYes, "ok": IntentYes, "1": IntentYes,
	"yes": IntentYes, "y": IntentYes, "confirm": IntentYes,
	"no": IntentNo, "cancelar": IntentNo, "cancelo": IntentNo, "2": IntentNo, "cancel": IntentNo,
	"stop": IntentStop, "baja": IntentStop, "unsubscribe": IntentStop, "cancelar suscripcion": IntentStop,
	"start": IntentStart, "alta": IntentStart,
}

// Classify reads a whole reply: case- and accent-insensitive, trimmed of
// punctuation and surrounding space, inner runs of space collapsed. Only a
// message that is exactly one of the words acts ("sí, gracias" is a chat
// message), so a patient's sentence is never taken for an answer.
func Classify(body string) Intent {
	if len(body) > 64 {
		return IntentNone
	}
	s := names.Fold(body)
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r) })
	s = strings.Join(strings.Fields(s), " ")
	return intents[s]
}
