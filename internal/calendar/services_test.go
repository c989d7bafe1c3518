package calendar

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

// ListServices answers with its own single query; what it lists must be
// exactly what booking accepts, i.e. what loadCatalog reads, inactive
// services, professionals and event types included in the fixture.
func TestListServicesMatchesCatalog(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		for _, file := range []string{"../workspace/testdata/acme.yaml", "../httpapi/testdata/calendar.yaml"} {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := (&workspace.Applier{DB: store, Now: time.Now}).Apply(ctx, data); err != nil {
				t.Fatal(err)
			}
		}
		acct, err := account.BySlug(ctx, store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ListServices(ctx, store, acct)
		if err != nil {
			t.Fatal(err)
		}
		c, err := loadCatalog(ctx, store, acct)
		if err != nil {
			t.Fatal(err)
		}
		want := []Service{}
		for _, s := range c.services {
			svc := Service{ID: s.ID, Name: s.Name, DefaultDurationMinutes: s.Duration, Professionals: []Ref{}, EventTypes: []Ref{}}
			for _, p := range s.Pros {
				svc.Professionals = append(svc.Professionals, Ref{ID: p.ID, Name: p.Name})
			}
			for _, e := range s.Types {
				svc.EventTypes = append(svc.EventTypes, Ref{ID: e.ID, Name: e.Name})
			}
			want = append(want, svc)
		}
		if len(want) < 2 {
			t.Fatalf("fixture has %d bookable services; the comparison needs several", len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ListServices = %+v\ncatalog      = %+v", got, want)
		}
	})
}
