package contact

import (
	"sync"
	"time"
)

// zones caches ValidZone: time.LoadLocation reads the zone database on
// every call, and a batch asks once per row.
var zones sync.Map

// ValidZone reports whether name is an IANA zone ("Local" is not).
func ValidZone(name string) bool {
	if name == "" || name == "Local" {
		return false
	}
	if ok, seen := zones.Load(name); seen {
		return ok.(bool)
	}
	_, err := time.LoadLocation(name)
	if len(name) <= 64 {
		zones.Store(name, err == nil)
	}
	return err == nil
}
