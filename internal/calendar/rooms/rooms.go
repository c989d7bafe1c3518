// Package rooms holds what a resource's kind may be (docs/rooms.md), below
// both the calendar area and the workspace file, which read it.
package rooms

// Kinds are the kinds a room or piece of equipment may be.
var Kinds = []string{"room", "equipment"}
