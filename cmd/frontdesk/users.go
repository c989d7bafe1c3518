package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/frontdesk/frontdesk/internal/dashboard"
)

// cmdUsers handles "frontdesk users set-password --account SLUG --email E":
// the password is read from stdin (first line), or prompted for twice
// without echo when stdin is a terminal, so it never appears in argv or
// shell history.
func cmdUsers(ctx context.Context, args []string, env *Env) error {
	if _, err := subcommand(args, env, "usage: frontdesk users set-password --account SLUG --email E  (password on stdin)\n", "set-password"); err != nil {
		return err
	}
	f := newFlags("users set-password", env)
	slug := f.String("account", "", "account slug")
	email := f.String("email", "", "the user's e-mail")
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	if *slug == "" || *email == "" {
		fmt.Fprintln(env.Stderr, "users set-password: --account SLUG and --email E are required")
		return errUsage
	}
	pw, err := readPassword(env)
	if err != nil {
		return err
	}
	store, acct, err := openAccount(ctx, *f.dsn, *slug)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := dashboard.SetPassword(ctx, store, acct, *email, pw); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "password set for %s in %s; their dashboard sessions were signed out\n", *email, acct.Slug)
	return nil
}

func readPassword(env *Env) (string, error) {
	if file, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		fmt.Fprint(env.Stderr, "New password: ")
		first, err := term.ReadPassword(int(file.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(env.Stderr, "Again: ")
		second, err := term.ReadPassword(int(file.Fd()))
		fmt.Fprintln(env.Stderr)
		if err != nil {
			return "", err
		}
		if string(first) != string(second) {
			return "", fmt.Errorf("the two passwords differ")
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("read the password from stdin: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
