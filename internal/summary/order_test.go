package summary

import (
	"strings"
	"testing"
)

// wukongim/ordering's two ways of rapid sending read as the finding: in
// order when each send waits for its ack, N of M out of order with 16 in
// flight; a merge of processes adds the classes' counts.
func TestOrderReadsByPacing(t *testing.T) {
	classes := []DeliveriesByClass{{Class: 1, Kind: "pairs", InFlight: 1, Received: 2500},
		{Class: 2, Kind: "pairs", InFlight: 16, Received: 2500, OutOfOrder: 41, Duplicates: 2}}
	var parts []Summary
	for i := range 2 {
		var p Summary
		p.RunID, p.Users.Registered = "r", 4
		p.Generator.UserRanges = [][2]uint32{{uint32(2 * i), uint32(2*i + 2)}}
		p.Deliveries.ByClass = classes
		p.Deliveries.OutOfOrder, p.Deliveries.Duplicates = 41, 2
		parts = append(parts, p)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	want := "in order (5000 deliveries) when each send waits for its ack (class 1, pairs); " +
		"82 of 5000 out of order with 16 in flight, 4 duplicates (class 2, pairs)"
	if got := OrderText(m.Deliveries.ByClass); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if table := m.Table(); !strings.Contains(table, "| Order by pacing        | "+want+" |") || !strings.Contains(table, "| 4 / 82 |") {
		t.Fatalf("table:\n%s", table)
	}
	// A burst class allowed 20 in flight whose senders never had more
	// than 10 says so: the order was kept with 10 at most.
	burst := []DeliveriesByClass{classes[0], {Class: 2, Kind: "groups", InFlight: 20, MaxInFlight: 10, Received: 80}}
	if got, want := OrderText(burst), "in order (80 deliveries) with up to 10 in flight (20 allowed) (class 2, groups)"; !strings.HasSuffix(got, want) {
		t.Fatalf("got %q, want it to end %q", got, want)
	}
	if OrderText(classes[:1]) != "" {
		t.Fatal("one class: the totals say it")
	}
}

// The populations' row: what each one's users got of what they were owed.
func TestPopulationsRow(t *testing.T) {
	var s Summary
	s.Deliveries.ByPopulation = []DeliveriesByPopulation{{Population: "students", Users: 40, Expected: 4642, Received: 4642},
		{Population: "teachers", Users: 4, Expected: 404, Received: 400, Duplicates: 2}}
	want := "| By population          | students (40 users) 4,642 of 4,642; teachers (4 users) 400 of 404, 2 duplicates, 0 out of order |"
	if table := s.Table(); !strings.Contains(table, want) {
		t.Fatalf("table:\n%s\nwant the row %s", table, want)
	}
	if PopulationsText(nil) != "" {
		t.Fatal("no populations, no row")
	}
}
