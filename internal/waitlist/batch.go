package waitlist

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/errs"
)

// Batch row statuses (docs/contract.md, Waiting-list batch).
const (
	RowOK               = "ok"
	RowWillCreateClient = "will_create_client"
	RowAlreadyWaiting   = "already_waiting"
	RowError            = "error"
	RowDuplicate        = "skip:duplicate_in_file"
)

// BatchRequest is a validated batch.
type BatchRequest struct {
	WaitlistID          int64
	Rows                []Row
	SkipInvalid         bool
	ExistingClientsOnly bool
}

// RowResult is one row of the response, in request order. errors and
// warnings are always arrays.
type RowResult struct {
	Index    int      `json:"index"`
	Status   string   `json:"status"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	Phone    *string  `json:"phone"`
	Email    *string  `json:"email"`
	ClientID *int64   `json:"client_id"`
}

// Summary counts a batch's rows per status; every status is always present.
type Summary struct {
	OK               int `json:"ok"`
	WillCreateClient int `json:"will_create_client"`
	AlreadyWaiting   int `json:"already_waiting"`
	Error            int `json:"error"`
	Duplicate        int `json:"skip:duplicate_in_file"`
}

// Map returns the counts keyed by status (for metrics).
func (s Summary) Map() map[string]int {
	return map[string]int{RowOK: s.OK, RowWillCreateClient: s.WillCreateClient, RowAlreadyWaiting: s.AlreadyWaiting,
		RowError: s.Error, RowDuplicate: s.Duplicate}
}

func (s *Summary) add(status string) {
	switch status {
	case RowOK:
		s.OK++
	case RowWillCreateClient:
		s.WillCreateClient++
	case RowAlreadyWaiting:
		s.AlreadyWaiting++
	case RowError:
		s.Error++
	case RowDuplicate:
		s.Duplicate++
	}
}

// BatchResult is the data of a batch.
type BatchResult struct {
	WaitlistID     int64       `json:"waitlist_id"`
	ClientsCreated int         `json:"clients_created"`
	EntriesCreated int         `json:"entries_created"`
	Skipped        int         `json:"skipped"`
	Summary        Summary     `json:"summary"`
	Rows           []RowResult `json:"rows"`
}

// ImportBatch adds up to 500 rows to one list in one transaction, with a
// constant number of queries whatever the batch size: the list and its
// services, the preferred professionals, the clients by every phone and by
// every e-mail, and the open entries of every matched client are each loaded
// at once; every decision is made in memory; new clients and entries are
// written with multi-row statements.
//
// With SkipInvalid false and any row in error nothing is written and the
// error is IMPORT_HAS_ERRORS; the result is returned alongside it (for
// metrics), without the ids of clients that were not created.
func ImportBatch(ctx context.Context, store *db.DB, acct account.Account, req BatchRequest, now time.Time) (*BatchResult, error) {
	var res *BatchResult
	refused := errors.New("refused")
	err := store.Transact(ctx, func(tx *db.Tx) error {
		list, err := loadList(ctx, tx, acct, req.WaitlistID)
		if err != nil {
			return err
		}
		b := &batch{tx: tx, acct: acct, req: req, list: list, now: now}
		if res, err = b.run(ctx); err != nil {
			return err
		}
		if res.Summary.Error > 0 && !req.SkipInvalid {
			return refused // nothing has been written yet; never commit a read
		}
		return b.write(ctx, res)
	})
	if errors.Is(err, refused) {
		return res, errs.WithDetails(errs.ImportHasErrors, map[string]any{"summary": res.Summary, "rows": res.Rows},
			"%d of %d rows have errors; nothing was written (skip_invalid is false).", res.Summary.Error, len(res.Rows))
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// batch is one import inside its transaction.
type batch struct {
	tx   *db.Tx
	acct account.Account
	req  BatchRequest
	list List
	now  time.Time

	services [][]Service // per row, after dropping repeats
	// contact per row: an existing client, or a client the batch creates.
	existing []*contact.Client
	pending  []int // index into news, -1 when none
	news     []contact.New
	newRow   []int // the row that creates each new client
	writes   []rowWrite
}

// rowWrite is a row's entries to write, once its client has an id.
type rowWrite struct {
	row      int
	services []int64
}

func (b *batch) run(ctx context.Context) (*BatchResult, error) {
	rows := b.req.Rows
	res := &BatchResult{WaitlistID: b.list.ID, Rows: make([]RowResult, len(rows))}
	b.services = make([][]Service, len(rows))
	b.existing = make([]*contact.Client, len(rows))
	b.pending = make([]int, len(rows))

	byID, byName, err := listServices(ctx, b.tx, b.acct, b.list.ID)
	if err != nil {
		return nil, err
	}
	var profIDs, serviceIDs []int64
	var nationals, emails []string
	for _, r := range rows {
		if r.Prefs.PreferredProfessionalID != nil {
			profIDs = append(profIDs, *r.Prefs.PreferredProfessionalID)
		}
		if !r.Phone.IsZero() {
			nationals = append(nationals, r.Phone.National)
		}
		if r.Email != "" {
			emails = append(emails, r.Email)
		}
	}
	profs, err := loadProfessionals(ctx, b.tx, b.acct, append([]int64{}, profIDs...))
	if err != nil {
		return nil, err
	}
	if err := contact.LockKeys(ctx, b.tx, b.acct, contact.Keys{Nationals: nationals, Emails: emails}); err != nil {
		return nil, err
	}
	byPhone, byEmail, err := contact.ByKeys(ctx, b.tx, b.acct, nationals, emails)
	if err != nil {
		return nil, err
	}

	// Pass 1, in row order: values, services and the contact of each row.
	// Clients the batch will create are matched by later rows exactly as
	// stored ones are, so a batch behaves as its rows would one by one and
	// re-sending it converges.
	pendingPhone := map[string]int{} // national digits -> new client
	pendingEmail := map[string]int{} // normalised e-mail -> new client
	matchedIDs := map[int64]bool{}
	for i, r := range rows {
		out := &res.Rows[i]
		*out = RowResult{Index: r.Index, Errors: append([]string{}, r.errors...), Warnings: []string{}}
		if !r.Phone.IsZero() {
			p := r.Phone.E164()
			out.Phone = &p
		}
		if r.emailSent && r.Email != "" {
			e := r.Email
			out.Email = &e
		}
		b.pending[i] = -1
		b.services[i] = b.resolveServices(out, r, byID, byName)
		for _, s := range b.services[i] {
			serviceIDs = append(serviceIDs, s.ID)
		}
		if id := r.Prefs.PreferredProfessionalID; id != nil {
			if p, ok := profs[*id]; !ok || !p.Active {
				out.Errors = append(out.Errors, fmt.Sprintf("preferred_professional_id %d is not an active professional of this account", *id))
			}
		}
		b.match(i, r, out, byPhone, byEmail, pendingPhone, pendingEmail)
		if c := b.existing[i]; c != nil {
			out.ClientID = &c.ID
			matchedIDs[c.ID] = true
		}
		if len(out.Errors) > 0 {
			out.Status = RowError
			continue
		}
		if b.existing[i] == nil && b.pending[i] < 0 {
			if b.req.ExistingClientsOnly {
				out.Status = RowError
				out.Errors = append(out.Errors, "no existing client has this phone or e-mail, and existing_clients_only is set")
				continue
			}
			b.pending[i] = len(b.news)
			b.newRow = append(b.newRow, i)
			b.news = append(b.news, contact.New{FirstName: r.FirstName, LastName: r.LastName, Phone: r.Phone, Email: r.Email})
			if !r.Phone.IsZero() {
				pendingPhone[r.Phone.National] = b.pending[i]
			}
			if r.Email != "" {
				if _, taken := pendingEmail[contact.NormEmail(r.Email)]; !taken {
					pendingEmail[contact.NormEmail(r.Email)] = b.pending[i]
				}
			}
		}
	}

	open, err := b.openPairs(ctx, sortedIDs(matchedIDs), uniq(serviceIDs))
	if err != nil {
		return nil, err
	}

	// Pass 2: duplicates, pairs already waiting, and what to write.
	seen := map[string]int{}    // contact + service set -> first row
	claimed := map[string]int{} // contact + service -> row that writes it
	for i := range rows {
		out := &res.Rows[i]
		if out.Status == RowError {
			res.Summary.add(RowError)
			continue
		}
		who := b.contactKey(i)
		set := make([]string, len(b.services[i]))
		for k, s := range b.services[i] {
			set[k] = strconv.FormatInt(s.ID, 10)
		}
		sort.Strings(set)
		key := who + "|" + strings.Join(set, ",")
		if j, dup := seen[key]; dup {
			out.Status = RowDuplicate
			out.Warnings = append(out.Warnings, fmt.Sprintf("same client and services as row %d", j))
			res.Summary.add(RowDuplicate)
			continue
		}
		seen[key] = i
		var write []int64
		var waiting []string
		for _, s := range b.services[i] {
			pair := who + "|" + strconv.FormatInt(s.ID, 10)
			switch j, byRow := claimed[pair]; {
			case b.existing[i] != nil && open[[2]int64{b.existing[i].ID, s.ID}]:
				waiting = append(waiting, fmt.Sprintf("service %d (%s) already has an open entry for this client; left untouched", s.ID, s.Name))
			case byRow:
				waiting = append(waiting, fmt.Sprintf("service %d (%s) is already added for this client by row %d", s.ID, s.Name, j))
			default:
				write = append(write, s.ID)
				claimed[pair] = i
			}
		}
		if len(write) == 0 {
			out.Status = RowAlreadyWaiting
			res.Summary.add(RowAlreadyWaiting)
			continue
		}
		out.Warnings = append(out.Warnings, waiting...)
		out.Status = RowOK
		if p := b.pending[i]; p >= 0 && b.newRow[p] == i {
			out.Status = RowWillCreateClient
		}
		res.Summary.add(out.Status)
		b.writes = append(b.writes, rowWrite{row: i, services: write})
	}
	res.Skipped = res.Summary.Error + res.Summary.Duplicate + res.Summary.AlreadyWaiting
	return res, nil
}

// resolveServices resolves a row's services against the target list: ids
// first, then names, each kept once (a repeat is a warning), anything not
// in the list an error.
func (b *batch) resolveServices(out *RowResult, r Row, byID map[int64]Service, byName map[string][]Service) []Service {
	var services []Service
	seen := map[int64]bool{}
	keep := func(s Service) {
		if seen[s.ID] {
			out.Warnings = append(out.Warnings, fmt.Sprintf("service %d (%s) is named more than once; kept once", s.ID, s.Name))
			return
		}
		seen[s.ID] = true
		services = append(services, s)
	}
	for _, id := range r.ServiceIDs {
		s, ok := byID[id]
		if !ok {
			out.Errors = append(out.Errors, fmt.Sprintf("service %d is not in waiting list %d (%s)", id, b.list.ID, b.list.Name))
			continue
		}
		keep(s)
	}
	for _, name := range r.ServiceNames {
		found := byName[nameKey(name)]
		switch len(found) {
		case 0:
			out.Errors = append(out.Errors, fmt.Sprintf("service %q is not in waiting list %d (%s)", name, b.list.ID, b.list.Name))
		case 1:
			keep(found[0])
		default:
			out.Errors = append(out.Errors, fmt.Sprintf("several services of waiting list %d are named %q; name it by id", b.list.ID, name))
		}
	}
	return services
}

// match finds a row's contact: by phone (national digits; under another
// country code it is an error, never a silent match), then by e-mail; first
// among stored clients, then among those earlier rows will create.
func (b *batch) match(i int, r Row, out *RowResult, byPhone, byEmail map[string]contact.Client, pendingPhone, pendingEmail map[string]int) {
	if !r.Phone.IsZero() {
		if c, ok := byPhone[r.Phone.National]; ok {
			if c.Phone.CountryCode != r.Phone.CountryCode {
				out.Errors = append(out.Errors, fmt.Sprintf("phone: the national digits of this phone belong to client %d, stored as %s under another country code",
					c.ID, c.Phone.E164()))
				return
			}
			b.existing[i] = &c
			return
		}
		if p, ok := pendingPhone[r.Phone.National]; ok {
			if b.news[p].Phone.CountryCode != r.Phone.CountryCode {
				out.Errors = append(out.Errors, fmt.Sprintf("phone: row %d of this batch has the same national digits under another country code (%s)",
					b.newRow[p], b.news[p].Phone.E164()))
				return
			}
			b.pending[i] = p
			return
		}
	}
	if r.Email == "" {
		return
	}
	if c, ok := byEmail[contact.NormEmail(r.Email)]; ok {
		b.existing[i] = &c
		return
	}
	if p, ok := pendingEmail[contact.NormEmail(r.Email)]; ok {
		b.pending[i] = p
	}
}

// contactKey names a row's contact for duplicate detection.
func (b *batch) contactKey(i int) string {
	if c := b.existing[i]; c != nil {
		return "c" + strconv.FormatInt(c.ID, 10)
	}
	return "n" + strconv.Itoa(b.pending[i])
}

// openPairs loads which (client, service) pairs have an open entry, for
// every matched client at once.
func (b *batch) openPairs(ctx context.Context, clientIDs, serviceIDs []int64) (map[[2]int64]bool, error) {
	open := map[[2]int64]bool{}
	if len(clientIDs) == 0 || len(serviceIDs) == 0 {
		return open, nil
	}
	cin, cargs := db.In(clientIDs)
	sin, sargs := db.In(serviceIDs)
	args := append(append([]any{b.acct.ID}, cargs...), sargs...)
	rows, err := b.tx.Query(ctx, `SELECT client_id, service_id FROM waitlist_entries
		WHERE account_id = ? AND status IN `+openStatuses+` AND client_id IN `+cin+` AND service_id IN `+sin, args...)
	if err != nil {
		return nil, fmt.Errorf("load open entries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c, s int64
		if err := rows.Scan(&c, &s); err != nil {
			return nil, err
		}
		open[[2]int64{c, s}] = true
	}
	return open, rows.Err()
}

// write creates the new clients and the entries, and fills in the ids the
// response reports.
func (b *batch) write(ctx context.Context, res *BatchResult) error {
	clientIDs, err := contact.InsertMany(ctx, b.tx, b.acct, b.news, b.now)
	if err != nil {
		return err
	}
	res.ClientsCreated = len(clientIDs)
	clientOf := func(i int) int64 {
		if c := b.existing[i]; c != nil {
			return c.ID
		}
		return clientIDs[b.pending[i]]
	}
	for i := range res.Rows {
		if out := &res.Rows[i]; out.ClientID == nil && out.Status != RowError && b.pending[i] >= 0 {
			id := clientIDs[b.pending[i]]
			out.ClientID = &id
		}
	}
	n := 0
	for _, w := range b.writes {
		n += len(w.services)
	}
	ids, err := b.tx.Dialect().ReserveIDs(ctx, b.tx, "waitlist_entries", n)
	if err != nil {
		return err
	}
	news := make([]newEntry, 0, n)
	for _, w := range b.writes {
		for _, sid := range w.services {
			news = append(news, newEntry{id: ids[len(news)], listID: b.list.ID, clientID: clientOf(w.row), serviceID: sid,
				source: SourceAPIBatch, prefs: b.req.Rows[w.row].Prefs})
		}
	}
	inserted, err := insertEntries(ctx, b.tx, b.acct, news, b.now)
	if err != nil {
		return err
	}
	if len(inserted) != len(news) {
		// Every writer of entries holds the account's client lock, so the
		// pairs read as free are still free; anything else is a bug.
		return fmt.Errorf("waiting-list batch: %d of %d entries collided with open entries written concurrently", len(news)-len(inserted), len(news))
	}
	res.EntriesCreated = len(inserted)
	return nil
}
