// Package clientserver runs the public Go client (the client/ module)
// against the real API server on both engines. The tests live here, in the
// server module, because the client module must not import the server's
// internal packages: its graph is the standard library only (see README.md,
// "Go client").
package clientserver
