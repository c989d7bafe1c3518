package names

// FoldFull exposes the general pipeline so tests can check that the ASCII
// fast path agrees with it.
var FoldFull = foldFull
