package workspace

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
)

// ChatImportBatch is how many lines one import transaction writes: large enough
// to amortise the commit, small enough that a long import never holds the
// SQLite write lock for long.
const ChatImportBatch = 500

// chatMaxReported caps the problems an invalid file reports.
const chatMaxReported = 100

// ChatImportSummary is what `frontdesk chat import` prints.
type ChatImportSummary struct {
	// Imported counts the conversations (lines) of the file, all applied.
	Imported int `json:"imported"`
	// Conversations counts the conversations this run created; Messages the
	// messages it added. Both are 0 when the same file is imported again.
	Conversations int `json:"conversations"`
	Messages      int `json:"messages"`
}

// ChatImportError lists the problems of an import file, each with its line
// number. Nothing was written.
type ChatImportError struct {
	Problems []string
	More     int // problems beyond the reported ones
}

func (e *ChatImportError) Error() string {
	s := "invalid import file:\n  " + strings.Join(e.Problems, "\n  ")
	if e.More > 0 {
		s += fmt.Sprintf("\n  ... and %d more", e.More)
	}
	return s
}

// ImportChat loads a JSONL file (`frontdesk chat import`) of conversations into the account: one
// ConversationSpec per line, matched by its key, so importing the
// same file twice writes nothing the second time and a file that grew adds
// only what is new. The whole file is validated first (every problem with
// its line number, nothing written when there is one); then it is written in
// transactions of ChatImportBatch lines. r is read twice.
func ImportChat(ctx context.Context, store *db.DB, acct account.Account, r io.ReadSeeker, now time.Time) (ChatImportSummary, error) {
	refs, known, err := loadChatRefs(ctx, store, acct)
	if err != nil {
		return ChatImportSummary{}, err
	}
	if err := validateChatFile(r, acct, known); err != nil {
		return ChatImportSummary{}, err
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return ChatImportSummary{}, err
	}
	var sum ChatImportSummary
	batch := make([]ConversationSpec, 0, ChatImportBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		created, added, err := importChatBatch(ctx, store, acct, batch, refs, now)
		if err != nil {
			return err
		}
		sum.Imported += len(batch)
		sum.Conversations += created
		sum.Messages += added
		batch = batch[:0]
		return nil
	}
	err = eachLine(r, func(_ int, line []byte) error {
		var cv ConversationSpec
		if err := json.Unmarshal(line, &cv); err != nil {
			return err // validated above; only a file changed under us gets here
		}
		batch = append(batch, cv)
		if len(batch) == ChatImportBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return sum, err
	}
	return sum, flush()
}

// importChatBatch writes one batch in one transaction and reports how many
// conversations it created and messages it added.
func importChatBatch(ctx context.Context, store *db.DB, acct account.Account, batch []ConversationSpec, refs ConversationRefs, now time.Time) (created, added int, err error) {
	keys := make([]string, len(batch))
	for i, cv := range batch {
		keys[i] = cv.Key
	}
	in, inArgs := db.In(keys)
	tally := func(q db.Querier) (n, msgs int, err error) {
		err = q.QueryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(message_count), 0) FROM conversations
			WHERE account_id = ? AND file_key IN `+in, append([]any{acct.ID}, inArgs...)...).Scan(&n, &msgs)
		return n, msgs, err
	}
	err = store.Transact(ctx, func(tx *db.Tx) error {
		n0, m0, err := tally(tx)
		if err != nil {
			return err
		}
		for _, cv := range batch {
			if _, err := UpsertConversation(ctx, tx, acct, cv, refs, now); err != nil {
				return fmt.Errorf("conversation %q: %w", cv.Key, err)
			}
		}
		n1, m1, err := tally(tx)
		if err != nil {
			return err
		}
		created, added = n1-n0, m1-m0
		return nil
	})
	return created, added, err
}

// validateChatFile checks every line: JSON, the workspace file's conversation
// rules (against the account's agents, users and disposition tags), and
// keys unique across the file.
func validateChatFile(r io.Reader, acct account.Account, known *Known) error {
	ierr := &ChatImportError{}
	add := func(p string) {
		if len(ierr.Problems) < chatMaxReported {
			ierr.Problems = append(ierr.Problems, p)
		} else {
			ierr.More++
		}
	}
	seen := map[string]int{}
	lines := 0
	err := eachLine(r, func(n int, line []byte) error {
		lines++
		var cv ConversationSpec
		if err := json.Unmarshal(line, &cv); err != nil {
			add(fmt.Sprintf("line %d: not a JSON conversation object: %s", n, strings.TrimPrefix(err.Error(), "json: ")))
			return nil
		}
		f := &File{Account: AccountSpec{Slug: acct.Slug, DefaultRegion: acct.DefaultRegion}, Conversations: []ConversationSpec{cv}}
		if err := Validate(f, known); err != nil {
			var werr *Error
			if !errors.As(err, &werr) {
				return err
			}
			for _, p := range werr.Problems {
				p = strings.TrimPrefix(p, "conversations[0]")
				add(fmt.Sprintf("line %d: %s", n, strings.TrimPrefix(p, ".")))
			}
		}
		if cv.Key != "" {
			if first, dup := seen[cv.Key]; dup {
				add(fmt.Sprintf("line %d: key: duplicate key %q (first on line %d)", n, cv.Key, first))
			} else {
				seen[cv.Key] = n
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if lines == 0 {
		add("the file holds no conversations")
	}
	if len(ierr.Problems) > 0 {
		return ierr
	}
	return nil
}

// eachLine calls fn with every non-blank line and its 1-based number.
func eachLine(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// loadChatRefs reads the account's AI agent, user and disposition tag keys: the
// ids the writer needs and the key sets the validator checks against.
func loadChatRefs(ctx context.Context, q db.Querier, acct account.Account) (ConversationRefs, *Known, error) {
	refs := ConversationRefs{Agents: map[string]int64{}, Users: map[string]int64{}, Dispositions: map[string]int64{}}
	known := &Known{Agents: map[string]bool{}, Users: map[string]bool{}, Dispositions: map[string]bool{}}
	for _, t := range []struct {
		table string
		ids   map[string]int64
		keys  map[string]bool
	}{
		{"ai_agents", refs.Agents, known.Agents},
		{"users", refs.Users, known.Users},
		{"disposition_tags", refs.Dispositions, known.Dispositions},
	} {
		rows, err := q.Query(ctx, `SELECT file_key, id FROM `+t.table+` WHERE account_id = ?`, acct.ID)
		if err != nil {
			return refs, nil, err
		}
		for rows.Next() {
			var (
				k  string
				id int64
			)
			if err := rows.Scan(&k, &id); err != nil {
				rows.Close()
				return refs, nil, err
			}
			t.ids[k], t.keys[k] = id, true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return refs, nil, err
		}
	}
	return refs, known, nil
}
