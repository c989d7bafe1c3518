package channels_test

import (
	"errors"
	"net"
	"testing"

	"github.com/frontdesk/frontdesk/internal/channels"
)

func asErr(err error, target **channels.Error) bool { return errors.As(err, target) }

// closedURL is an http URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}
