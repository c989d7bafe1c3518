// Package phone turns the phone numbers people type into the one form
// Frontdesk stores and compares: a country calling code plus the national
// significant number.
//
// Contacts are unique per account on their national digits, so every way of
// writing the same line ("+34 600 111 222", "0034600111222", "600111222" with
// area code 34, ...) has to collapse to the same Number, or the same client
// shows up twice. The heavy lifting (numbering plans, trunk prefixes,
// lengths) is delegated to github.com/nyaruka/phonenumbers; this package only
// decides which of its answers to trust for each entry point, and does so in
// one place so that ingest, booking and waiting lists cannot drift apart.
//
// The library is deliberately lenient (it maps letters to keypad digits,
// splits off extensions, accepts "tel:" URIs). None of that is wanted for a
// stored identity, so input is reduced to an optional "+" and ASCII digits
// before the library ever sees it.
package phone

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers"
)

// Number is a normalised phone: country calling code + national significant
// number digits.
//
// National keeps leading zeros (Italian fixed lines are "+39 06 ...") which
// is why it is a string rather than the library's uint64.
type Number struct {
	CountryCode int
	National    string
}

// E164 returns the number as "+" + country code + national digits, the only
// form Frontdesk puts in responses. The zero Number has no E.164 form and
// yields "" so that an unset phone never renders as a bogus "+0".
func (n Number) E164() string {
	if n.IsZero() {
		return ""
	}
	return "+" + strconv.Itoa(n.CountryCode) + n.National
}

// IsZero reports whether n is the zero Number (no phone).
func (n Number) IsZero() bool {
	return n.CountryCode == 0 && n.National == ""
}

// ErrInvalid is wrapped by every parse failure, so callers can map any of
// them to a 400 with errors.Is while still showing the specific reason.
var ErrInvalid = errors.New("invalid phone number")

// invalidError carries a message meant for the API client. It unwraps to
// ErrInvalid rather than prefixing it so the text stays a single readable
// sentence.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalid(msg string) error { return &invalidError{msg: msg} }

// Messages shared by more than one path, so the same mistake reads the same
// everywhere.
var (
	errEmpty        = invalid("phone number is empty")
	errNoDigits     = invalid("phone number has no digits")
	errTooShort     = invalid("phone number is too short")
	errTooLong      = invalid("phone number is too long")
	errUnknownCC    = invalid("phone number has an unknown country code")
	errLocalOnly    = invalid("phone number is missing its area code")
	errWrongLength  = invalid("phone number has the wrong number of digits for its country")
	errNotPossible  = invalid("phone number is not a possible number for its country")
	errNoCCIngest   = invalid("phone number has no country code; send it in E.164 (+34600111222) or give area_code")
	errNoCCNoRegion = invalid("phone number has no country code and no default region; send it in E.164 (+34600111222)")
)

// maxInputLen bounds the work done on hostile input; a generously formatted
// real number is well under 50 bytes.
const maxInputLen = 128

// ParseIngest implements the pipeline-ingest rules. areaCode is a country
// calling code as the user sent it ("", "34", "+34"; surrounding spaces are
// tolerated).
//
//  1. "+"-prefixed input is authoritative E.164 and is accepted when it is a
//     possible number.
//  2. "00"-prefixed input is the international prefix and is treated like "+".
//  3. Otherwise, with an area code, the digits are read as a national number
//     of that country (the library strips trunk prefixes such as the UK's
//     leading 0). A valid national reading wins; failing that, digits that
//     already start with the area code and are valid as "+"+digits win;
//     failing that, a possible national reading is accepted.
//  4. Without an area code, bare digits are accepted only when "+"+digits is
//     a valid number: a local number is never assigned a guessed country.
//
// A malformed or unknown areaCode is an error even when the number carries
// its own country code, because it means the caller sent something wrong.
func ParseIngest(raw, areaCode string) (Number, error) {
	cc := 0
	if strings.TrimSpace(areaCode) != "" {
		var err error
		if cc, err = ParseCallingCode(areaCode); err != nil {
			return Number{}, err
		}
	}
	intl, digits, err := clean(raw)
	if err != nil {
		return Number{}, err
	}
	if intl {
		return parseInternational(digits)
	}

	if cc == 0 {
		// Only a number that is valid as written with a "+" is safe to take
		// without a country: "34600111222" is Spain, "600111222" could be
		// anywhere and guessing would merge unrelated clients.
		if pn, err := libParse("+"+digits, ""); err == nil && phonenumbers.IsValidNumber(pn) {
			return settle(pn)
		}
		return Number{}, errNoCCIngest
	}

	national, natErr := parseNationalForCallingCode(digits, cc)
	if natErr == nil && phonenumbers.IsValidNumber(national) {
		return settle(national)
	}
	// People paste full international numbers without the "+" next to an
	// area_code column; accept them only when they really belong to it.
	if pn, err := libParse("+"+digits, ""); err == nil &&
		int(pn.GetCountryCode()) == cc && phonenumbers.IsValidNumber(pn) {
		return settle(pn)
	}
	if natErr != nil {
		return Number{}, natErr
	}
	if err := checkPossible(national); err != nil {
		return Number{}, err
	}
	return settle(national)
}

// ParseWithRegion implements the rules outside ingest (booking, waiting
// lists), where the account's default region stands in for a missing country
// code. "+" and "00" input is international; anything else is read as a
// national number of region (ISO 3166 alpha-2, case-insensitive). Possible
// numbers are accepted: a booking should not fail because the library's
// ranges lag behind a newly issued block.
//
// A non-empty unknown region is rejected even for international input, so a
// misconfigured caller is noticed instead of working by accident.
func ParseWithRegion(raw, region string) (Number, error) {
	region = normRegion(region)
	if region != "" && !supportedRegion(region) {
		return Number{}, invalid("unknown region " + strconv.Quote(region) + "; use an ISO 3166 alpha-2 code such as ES")
	}
	intl, digits, err := clean(raw)
	if err != nil {
		return Number{}, err
	}
	if intl {
		return parseInternational(digits)
	}
	if region == "" {
		return Number{}, errNoCCNoRegion
	}
	pn, err := libParse(digits, region)
	if err != nil {
		return Number{}, err
	}
	if err := checkPossible(pn); err != nil {
		return Number{}, err
	}
	return settle(pn)
}

// ParseCallingCode turns "34", "+34" or " 34 " into 34. Anything else,
// including a well-formed but unassigned code, is an error: a wrong area code
// would silently file every imported number under the wrong country.
func ParseCallingCode(s string) (int, error) {
	t := strings.TrimFunc(s, unicode.IsSpace)
	t = strings.TrimPrefix(t, "+")
	t = strings.TrimLeftFunc(t, unicode.IsSpace) // "+ 34"
	bad := invalid("area code " + strconv.Quote(s) + " is not a country calling code such as 34 or +34")
	if len(t) == 0 || len(t) > 3 || t[0] == '0' {
		return 0, bad
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, bad
		}
	}
	cc, _ := strconv.Atoi(t) // cannot fail: 1-3 ASCII digits
	if !phonenumbers.GetSupportedCallingCodes()[cc] {
		return 0, invalid("area code +" + t + " is not an assigned country calling code")
	}
	return cc, nil
}

// ValidRegion reports whether an ISO 3166 alpha-2 code is a region the phone
// library knows. It accepts exactly the spellings ParseWithRegion accepts
// (any case, surrounding spaces), so validating a setting with it guarantees
// later parses will not fail on the region.
func ValidRegion(region string) bool {
	return supportedRegion(normRegion(region))
}

// Digits returns only the ASCII digits of s. Phone search matches on these so
// that "600 11", "600-11" and "+34600 11" all find the same stored number.
func Digits(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	if n == len(s) {
		return s
	}
	b := make([]byte, 0, n)
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

func normRegion(region string) string {
	return strings.ToUpper(strings.TrimSpace(region))
}

// supportedRegion insists on two ASCII letters because the library's region
// table also holds "001", the pseudo-region for non-geographic codes, which
// is not something a caller may pick as a default.
func supportedRegion(region string) bool {
	if len(region) != 2 || region[0] < 'A' || region[0] > 'Z' || region[1] < 'A' || region[1] > 'Z' {
		return false
	}
	return phonenumbers.GetSupportedRegions()[region]
}

// clean reduces raw to digits plus a flag for "this was written in
// international form". Only characters people use to lay out a number are
// dropped; anything else is an error rather than being guessed at (the
// library would turn letters into keypad digits and text after "ext" into an
// extension, neither of which can be stored).
func clean(raw string) (intl bool, digits string, err error) {
	if len(raw) > maxInputLen {
		return false, "", errTooLong
	}
	var b strings.Builder
	b.Grow(len(raw))
	for _, r := range raw {
		switch {
		case r >= '0' && r <= '9':
			b.WriteByte(byte(r))
		case r == '+':
			// Only as the first significant character; "(+34) 600..." is
			// common, "600+111" is not a number.
			if intl || b.Len() > 0 {
				return false, "", invalid("phone number has a misplaced '+'; only a leading '+' is allowed")
			}
			intl = true
		case r == '.' || r == '(' || r == ')' || r == '-' ||
			unicode.IsSpace(r) || unicode.Is(unicode.Pd, r):
			// Layout only. Unicode spaces and dashes arrive via copy-paste
			// from spreadsheets and word processors.
		case r == utf8.RuneError:
			return false, "", invalid("phone number is not valid UTF-8")
		case unicode.IsLetter(r):
			return false, "", invalid("phone number contains letters; send digits only")
		default:
			return false, "", invalid("phone number contains " + strconv.QuoteRune(r) + "; only digits, spaces, dashes, dots, parentheses and a leading '+' are allowed")
		}
	}
	digits = b.String()
	if !intl && strings.HasPrefix(digits, "00") {
		intl, digits = true, digits[2:]
	}
	if digits == "" {
		if intl || strings.TrimFunc(raw, unicode.IsSpace) != "" {
			return false, "", errNoDigits
		}
		return false, "", errEmpty
	}
	return intl, digits, nil
}

// parseInternational handles "+"/"00" input, where the number states its own
// country and only plausibility (length) is checked.
func parseInternational(digits string) (Number, error) {
	pn, err := libParse("+"+digits, "")
	if err != nil {
		return Number{}, err
	}
	if err := checkPossible(pn); err != nil {
		return Number{}, err
	}
	return settle(pn)
}

// parseNationalForCallingCode reads digits as a national number of the
// country behind cc. Non-geographic codes (800, 882, ...) have no region and
// no trunk prefix, so their national reading is simply "+cc" + digits.
func parseNationalForCallingCode(digits string, cc int) (*phonenumbers.PhoneNumber, error) {
	region := phonenumbers.GetRegionCodeForCountryCode(cc)
	if !supportedRegion(region) {
		return libParse("+"+strconv.Itoa(cc)+digits, "")
	}
	return libParse(digits, region)
}

// libParse wraps phonenumbers.Parse and translates its errors into messages
// for API clients.
//
// Results are memoised (see parseCache): the library spends most of a parse
// in regular expressions, a 500-row batch parses every number twice (once as
// sent, once back from E.164 in settle), and integrators re-send the same
// numbers all day.
func libParse(s, region string) (*phonenumbers.PhoneNumber, error) {
	pn, err := cachedParse(s, region)
	switch {
	case err == nil:
	case errors.Is(err, phonenumbers.ErrInvalidCountryCode):
		return nil, errUnknownCC
	case errors.Is(err, phonenumbers.ErrNumTooLong):
		return nil, errTooLong
	default:
		// ErrNotANumber, ErrTooShortNSN, ErrTooShortAfterIDD: with input
		// already reduced to digits, all of these mean "not enough of them".
		return nil, errTooShort
	}
	if pn.GetCountryCode() == 0 || pn.GetNationalNumber() == 0 {
		return nil, errTooShort
	}
	return pn, nil
}

// checkPossible accepts IS_POSSIBLE only. The library's IsPossibleNumber
// also accepts IS_POSSIBLE_LOCAL_ONLY (a subscriber number without its area
// code), which cannot be dialled from elsewhere and would be stored as a
// different contact from the full number.
//
// A VALID number is always accepted: for shared calling codes the library
// checks lengths against the main region only, so Canada's valid 7-digit
// 310-xxxx numbers are "INVALID_LENGTH" for +1, and without this they would
// be accepted as national input but rejected in their own E.164 form.
//
// The length check comes first: it is a table lookup, while validity
// matches the number against up to a dozen of the library's regular
// expressions (most of a batch's phone work). A number is accepted when
// either holds, so the order changes no answer.
func checkPossible(pn *phonenumbers.PhoneNumber) error {
	reason := phonenumbers.IsPossibleNumberWithReason(pn)
	if reason == phonenumbers.IS_POSSIBLE || phonenumbers.IsValidNumber(pn) {
		return nil
	}
	switch reason {
	case phonenumbers.IS_POSSIBLE_LOCAL_ONLY:
		return errLocalOnly
	case phonenumbers.TOO_SHORT:
		return errTooShort
	case phonenumbers.TOO_LONG:
		return errTooLong
	case phonenumbers.INVALID_COUNTRY_CODE:
		return errUnknownCC
	case phonenumbers.INVALID_LENGTH:
		return errWrongLength
	default:
		return errNotPossible
	}
}

// settle converts a parsed number into a Number, insisting that its E.164
// form means the same Number when parsed back. The library strips trunk
// prefixes even from "+" input, so a national number that itself starts with
// something prefix-like could otherwise be stored under digits its own E.164
// rendering does not reproduce, and the client would be duplicated the next
// time it arrives in E.164. In practice this only rejects junk such as
// "+386 0000001", where each parse strips one more "trunk" zero.
func settle(pn *phonenumbers.PhoneNumber) (Number, error) {
	if pn.Extension != nil {
		// Unreachable with digit-only input; guards a library change.
		return Number{}, invalid("phone number has an extension, which cannot be stored")
	}
	n := Number{
		CountryCode: int(pn.GetCountryCode()),
		National:    phonenumbers.GetNationalSignificantNumber(pn),
	}
	back, err := cachedParse(n.E164(), "")
	if err != nil || int(back.GetCountryCode()) != n.CountryCode ||
		phonenumbers.GetNationalSignificantNumber(back) != n.National {
		return Number{}, invalid("phone number is not usable: written in E.164 it would read as a different number (check for extra zeros)")
	}
	return n, nil
}

// cachedParse is phonenumbers.Parse, memoised.
func cachedParse(s, region string) (*phonenumbers.PhoneNumber, error) {
	if region == "" && len(s) > 1 && s[0] == '+' {
		if pn, ok := fastInternational(s[1:]); ok {
			return pn, nil
		}
	}
	key := region + "|" + s
	if r, ok := parses.get(key); ok {
		return r.pn, r.err
	}
	pn, err := phonenumbers.Parse(s, region)
	parses.put(key, parseResult{pn, err})
	return pn, err
}

// parseResult is one memoised library parse. The *PhoneNumber is shared by
// every caller that parses the same string and must not be modified; this
// package only reads it.
type parseResult struct {
	pn  *phonenumbers.PhoneNumber
	err error
}

// parses holds the most recent library parses: two generations of at most
// parseCacheSize entries each (≈ 225 bytes an entry, so at most ≈ 4.5 MB),
// enough for the numbers of the last twenty-odd 500-row batches.
var parses = &parseCache{cur: map[string]parseResult{}}

const parseCacheSize = 10_000

type parseCache struct {
	mu        sync.Mutex
	cur, prev map[string]parseResult
}

func (c *parseCache) get(key string) (parseResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.cur[key]; ok {
		return r, true
	}
	if r, ok := c.prev[key]; ok {
		c.putLocked(key, r)
		return r, true
	}
	return parseResult{}, false
}

func (c *parseCache) put(key string, r parseResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, r)
}

func (c *parseCache) putLocked(key string, r parseResult) {
	if len(c.cur) >= parseCacheSize {
		c.prev, c.cur = c.cur, make(map[string]parseResult, parseCacheSize)
	}
	c.cur[key] = r
}
