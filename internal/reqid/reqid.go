// Package reqid carries a request's id (X-Request-Id, given by the HTTP
// layer's access log) in its context, so every door below it — the
// dashboard, the areas' logs — can write the same id beside its own lines
// without importing the HTTP layer.
package reqid

import "context"

type key struct{}

// With returns ctx carrying id.
func With(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, id)
}

// From returns the id ctx carries, or "".
func From(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}
