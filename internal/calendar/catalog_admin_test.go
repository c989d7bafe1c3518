package calendar

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/frontdesk/frontdesk/internal/account"
	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/db/dbtest"
	"github.com/frontdesk/frontdesk/internal/errs"
	"github.com/frontdesk/frontdesk/internal/workspace"
)

func TestParseDayHours(t *testing.T) {
	for _, test := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"  ", nil, ""},
		{"09:00-13:00", []string{"09:00-13:00"}, ""},
		{"15:00-19:00, 09:00-13:00", []string{"09:00-13:00", "15:00-19:00"}, ""},
		{"09:00-13:00;13:00-14:00", []string{"09:00-13:00", "13:00-14:00"}, ""},
		{"09:00–13:00", []string{"09:00-13:00"}, ""}, // an en dash, as some keyboards type it
		{"20:00-24:00", []string{"20:00-24:00"}, ""},
		{"9-13", nil, "ranges like"},
		{"13:00-09:00", nil, "ranges like"},
		{"09:00-09:00", nil, "ranges like"},
		{"09:00-25:00", nil, "ranges like"},
		{"09:00-13:00, 12:00-14:00", nil, "overlap"},
	} {
		got, err := ParseDayHours(test.in)
		if test.err != "" {
			if err == nil || !strings.Contains(err.Error(), test.err) {
				t.Errorf("%q: err %v, want %q", test.in, err, test.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, test.want) {
			t.Errorf("%q = %v, %v; want %v", test.in, got, err, test.want)
		}
	}
}

func code(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestCatalogAdmin: the catalogue's hand edits keep the workspace file's
// invariants, stay within the account, show in the cached services list at
// once, and leave `workspace apply` working.
func TestCatalogAdmin(t *testing.T) {
	dbtest.Engines(t, func(t *testing.T, store *db.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		apply := func(file string) *workspace.Result {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			res, err := (&workspace.Applier{DB: store, Now: func() time.Time { return now }}).Apply(ctx, data)
			if err != nil {
				t.Fatalf("apply %s: %v", file, err)
			}
			return res
		}
		acmeIDs := apply("../workspace/testdata/acme.yaml").IDs
		otherIDs := apply("../httpapi/testdata/other.yaml").IDs
		acct, err := account.BySlug(ctx, store, "acme")
		if err != nil {
			t.Fatal(err)
		}
		lopez, visit := acmeIDs.Professionals["lopez"], acmeIDs.EventTypes["visit"]

		cached := func() []Service {
			list, _, err := Services(ctx, store, acct, now)
			if err != nil {
				t.Fatal(err)
			}
			return list
		}
		if n := len(cached()); n != 1 {
			t.Fatalf("services before = %d", n)
		}

		// Refusals: the file's rules.
		for _, in := range []ServiceInput{
			{Name: "", DurationMinutes: 30},
			{Name: "X", DurationMinutes: 0},
			{Name: "X", DurationMinutes: 1441},
			{Name: "X", DurationMinutes: 30, Color: "red"},
			{Name: strings.Repeat("x", 201), DurationMinutes: 30},
			{Name: " LIMPIEZA dental ", DurationMinutes: 30},
		} {
			if _, err := CreateService(ctx, store, acct, in); code(err) != errs.ValidationError {
				t.Errorf("CreateService(%+v) = %v, want a validation error", in, err)
			}
		}

		var id int64
		err = store.Transact(ctx, func(tx *db.Tx) error {
			var err error
			id, err = CreateService(ctx, tx, acct, ServiceInput{Name: " Ortodoncia ", DurationMinutes: 45, Color: "#abc", Active: true})
			if err != nil {
				return err
			}
			if _, err := SetServiceProfessionals(ctx, tx, acct, id, []int64{lopez}); err != nil {
				return err
			}
			_, err = SetServiceEventTypes(ctx, tx, acct, id, []int64{visit})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		list := cached()
		if len(list) != 2 || list[1].Name != "Ortodoncia" || list[1].DefaultDurationMinutes != 45 ||
			len(list[1].Professionals) != 1 || len(list[1].EventTypes) != 1 {
			t.Fatalf("cached list after create: %+v", list)
		}
		svc, err := CatalogService(ctx, store, acct, id)
		if err != nil || !strings.HasPrefix(svc.FileKey, "dashboard-") || svc.Color != "#abc" {
			t.Fatalf("stored service %+v %v", svc, err)
		}

		// Another account's objects are unknown ones.
		if _, err := CatalogService(ctx, store, acct, otherIDs.Services["cleaning"]); code(err) != errs.NotFound {
			t.Errorf("another account's service: %v", err)
		}
		if _, err := UpdateService(ctx, store, acct, otherIDs.Services["cleaning"], ServiceInput{Name: "Mine", DurationMinutes: 30}); code(err) != errs.NotFound {
			t.Errorf("updating another account's service: %v", err)
		}
		if _, err := SetServiceProfessionals(ctx, store, acct, id, []int64{lopez, otherIDs.Professionals["jones"]}); code(err) != errs.ValidationError {
			t.Errorf("offering another account's professional: %v", err)
		}
		if _, err := UpdateEventType(ctx, store, acct, otherIDs.EventTypes["visit"], EventTypeInput{Name: "Mine"}); code(err) != errs.NotFound {
			t.Errorf("updating another account's event type: %v", err)
		}
		if _, err := SetWorkingHours(ctx, store, acct, otherIDs.Professionals["jones"], nil); code(err) != errs.NotFound {
			t.Errorf("another account's professional's hours: %v", err)
		}
		if err := AddTimeOff(ctx, store, acct, otherIDs.Professionals["jones"], now, now.Add(time.Hour)); code(err) != errs.NotFound {
			t.Errorf("another account's professional's time off: %v", err)
		}

		// Setting the same links again changes nothing.
		if changes, err := SetServiceProfessionals(ctx, store, acct, id, []int64{lopez}); err != nil || len(changes) != 0 {
			t.Errorf("same professionals again: %v %v", changes, err)
		}
		if changes, err := UpdateService(ctx, store, acct, id, ServiceInput{Name: "Ortodoncia", DurationMinutes: 45, Color: "#abc", Active: true}); err != nil || len(changes) != 0 {
			t.Errorf("same fields again: %v %v", changes, err)
		}

		// Hours and time off are stored as the file stores them and read
		// back by availability.
		hours := map[string][]string{"mon": {"15:00-19:00", "09:00-13:00"}, "wed": {"10:00-12:00"}, "fri": nil}
		changes, err := SetWorkingHours(ctx, store, acct, lopez, hours)
		if err != nil || len(changes) != 2 { // tue dropped, wed added; mon unchanged once sorted
			t.Fatalf("SetWorkingHours: %v %v", changes, err)
		}
		from := time.Date(2026, 11, 25, 0, 0, 0, 0, acct.Location())
		if err := AddTimeOff(ctx, store, acct, lopez, from, from.AddDate(0, 0, 1)); err != nil {
			t.Fatal(err)
		}
		if err := AddTimeOff(ctx, store, acct, lopez, from, from); code(err) != errs.ValidationError {
			t.Errorf("empty time off: %v", err)
		}
		p, err := CatalogProfessional(ctx, store, acct, lopez)
		if err != nil {
			t.Fatal(err)
		}
		if p.HoursText("mon") != "09:00-13:00, 15:00-19:00" || p.HoursText("tue") != "" || len(p.TimeOff) != 2 ||
			!p.TimeOff[0].From.Equal(from) || len(p.Services) != 2 {
			t.Fatalf("professional read back: %+v", p)
		}
		var hoursDoc, offDoc string
		store.QueryRow(ctx, `SELECT working_hours, time_off FROM professionals WHERE id = ?`, lopez).Scan(&hoursDoc, &offDoc)
		w := parseWeekHours(hoursDoc)
		if len(w[time.Monday]) != 2 || len(w[time.Wednesday]) != 1 || len(w[time.Tuesday]) != 0 || len(parseTimeOff(offDoc)) != 2 {
			t.Fatalf("availability reads %s / %s as %v", hoursDoc, offDoc, w)
		}
		if err := RemoveTimeOff(ctx, store, acct, lopez, p.TimeOff[0].RawFrom, p.TimeOff[0].RawTo); err != nil {
			t.Fatal(err)
		}
		if err := RemoveTimeOff(ctx, store, acct, lopez, p.TimeOff[0].RawFrom, p.TimeOff[0].RawTo); code(err) != errs.ValidationError {
			t.Errorf("removing twice: %v", err)
		}

		// The file applies again: its objects are updated by key, the
		// dashboard's are left as they are.
		apply("../workspace/testdata/acme.yaml")
		if list := cached(); len(list) != 2 || list[1].ID != id {
			t.Fatalf("after re-apply: %+v", list)
		}
	})
}
