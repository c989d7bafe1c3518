package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/frontdesk/frontdesk/internal/audit"
	"github.com/frontdesk/frontdesk/internal/contact"
	"github.com/frontdesk/frontdesk/internal/privacy"
)

const clientsUsage = `Usage:
  frontdesk clients export --account SLUG --client ID          everything held about a client, as JSON on stdout
  frontdesk clients erase --account SLUG --client ID [--yes]   erase a client's personal data for good
Without --yes, erase asks for the client's id typed back on stdin.
See docs/data-rights.md.
`

// Who the audit log says exported or erased, from the command line.
var (
	cliExporter = audit.Actor{UserName: "frontdesk clients export"}
	cliEraser   = audit.Actor{UserName: "frontdesk clients erase"}
)

// errNotConfirmed: erase was not confirmed; nothing was erased (exit 1).
var errNotConfirmed = errors.New("clients erase: not confirmed (type the client's id, or pass --yes): nothing was erased")

// cmdClients handles "frontdesk clients export|erase": a client's data
// rights (docs/data-rights.md), through privacy.Export and privacy.Erase.
func cmdClients(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, clientsUsage, "export", "erase"); err != nil {
		return err
	}
	f := newFlags("clients "+args[0], env)
	slug := f.String("account", "", "account slug")
	clientID := f.String("client", "", "the client's id")
	var yes *bool
	if args[0] == "erase" {
		yes = f.Bool("yes", false, "erase without asking for the client's id on stdin")
	}
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	id, err := strconv.ParseInt(*clientID, 10, 64)
	if *slug == "" || err != nil || id <= 0 {
		fmt.Fprintf(env.Stderr, "clients %s: --account SLUG and --client ID (a client's numeric id) are required\n", args[0])
		return errUsage
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	now := env.Clock.Now()
	if _, err := contact.GetClient(ctx, store, acct, id); err != nil {
		return err // before anything is written: a refusal prints nothing on stdout
	}
	if args[0] == "export" {
		if err := privacy.RecordExport(ctx, store, acct, id, cliExporter, now); err != nil {
			return err
		}
		return privacy.Export(ctx, store, acct, id, env.Stdout, now)
	}
	if !*yes {
		fmt.Fprintf(env.Stderr, "This erases the personal data of client %d in %s for good.\nType the client's id to confirm: ", id, acct.Slug)
		line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if strings.TrimSpace(line) != strconv.FormatInt(id, 10) {
			fmt.Fprintln(env.Stderr)
			return errNotConfirmed
		}
	}
	res, err := privacy.Erase(ctx, store, acct, id, cliEraser, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "client %d erased: %d future appointment(s) cancelled, %d waiting-list entr(ies) removed; client.erased queued for the webhooks\n",
		res.ClientID, res.Cancelled, res.EntriesRemoved)
	return nil
}
