package summary

import (
	"encoding/json"
	"strings"
	"testing"
)

func integrityOf(t *testing.T, s Summary) (top json.RawMessage, rooms json.RawMessage) {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Integrity  json.RawMessage `json:"integrity"`
		Deliveries struct {
			Rooms struct {
				Integrity json.RawMessage `json:"integrity"`
			} `json:"rooms"`
		} `json:"deliveries"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(raw, &back); err != nil || back.Deliveries.Expected != s.Deliveries.Expected {
		t.Fatalf("round trip: %v", err)
	}
	return m.Integrity, m.Deliveries.Rooms.Integrity
}

// Where no delivery was owed there is no integrity to state: null, not 0.
// A chatroom run states its rooms' own.
func TestIntegrityOnlyWhereDeliveriesWereOwed(t *testing.T) {
	var hold Summary // wildfire/c1000k: users held, nothing sent
	hold.Users.OnlinePeak = 2000
	if top, _ := integrityOf(t, hold); string(top) != "null" {
		t.Fatalf("holding run: integrity %s", top)
	}
	if got := IntegrityText(hold); got != "n/a (no message was sent)" {
		t.Fatalf("holding run: %q", got)
	}

	var room Summary // 296,100 of 296,100 room deliveries received
	room.Messages.Sent, room.Messages.Acked = 900, 900
	room.Deliveries.Rooms = &RoomsSummary{Expected: 296100, Received: 296100}
	room.Deliveries.Rooms.SetRate()
	top, rooms := integrityOf(t, room)
	if string(top) != "null" || string(rooms) != "1" {
		t.Fatalf("chatroom run: integrity %s, rooms' %s", top, rooms)
	}
	if got := IntegrityText(room); !strings.Contains(got, "chatrooms: 100% (296100 of 296100 deliveries to members present at sending arrived") {
		t.Fatalf("chatroom run: %q", got)
	}
	room.Deliveries.Rooms.Missed = 2961
	room.Deliveries.Rooms.SetRate()
	if _, rooms := integrityOf(t, room); string(rooms) != "0.99" {
		t.Fatalf("rooms' integrity %s, want 0.99", rooms)
	}

	var lost Summary // every delivery lost: integrity 0, stated
	lost.Deliveries.Expected, lost.Deliveries.Lost = 10, 10
	if top, _ := integrityOf(t, lost); string(top) != "0" {
		t.Fatalf("all lost: integrity %s", top)
	}
	parts := []Summary{room, room}
	parts[1].Deliveries.Rooms = &RoomsSummary{Expected: 100, Received: 100}
	parts[0].Generator.UserRanges, parts[1].Generator.UserRanges = [][2]uint32{{0, 1}}, [][2]uint32{{1, 2}}
	parts[0].Users.Registered, parts[1].Users.Registered = 2, 2
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if top, rooms := integrityOf(t, m); string(top) != "null" || string(rooms) != "0.990003" { // 293,239 of 296,200
		t.Fatalf("merged: integrity %s, rooms' %s", top, rooms)
	}
}

func TestPlannedTextSaysTheShapeOfTheLoad(t *testing.T) {
	for _, c := range []struct {
		m    MessagesSummary
		want string
	}{
		{MessagesSummary{Planned: 10, PlannedRate: 400}, "planned 400 msg/s"},
		{MessagesSummary{Planned: 10, PlannedRate: 400, Burst: true}, "planned 400 msg/s, each second's messages in one burst"},
		{MessagesSummary{Planned: 10, Closed: true}, "as fast as acknowledged"},
		{MessagesSummary{Planned: 10, PlannedRate: 4.5}, "planned 4.5 msg/s"},
		{MessagesSummary{Planned: 10, PlannedRate: 400, PlannedPerSecond: []int64{400, 399, 400}}, "planned 400 msg/s"},
		// A school day's lessons and chats never send at once: its rates add to 22, its busiest second has 55.
		{MessagesSummary{Planned: 10, PlannedRate: 22, PlannedPerSecond: []int64{2, 6, 55, 8}}, "planned 55 msg/s in its busiest second"},
	} {
		if got := PlannedText(c.m); got != c.want {
			t.Errorf("PlannedText(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}

// The rate row says how far the sends fell behind the plan's own seconds.
func TestPaceTextSaysHowFarBehindThePlan(t *testing.T) {
	m := MessagesSummary{PerSecond: []int64{10, 4, 6, 10}, PlannedPerSecond: []int64{10, 10, 10, 0}}
	if most, at := m.BehindPlan(); most != 10 || at != 2 {
		t.Fatalf("behind %d at %d", most, at)
	}
	if got := PaceText(m); got != ", up to 10 messages behind the plan (second 3)" {
		t.Fatalf("%q", got)
	}
	m.PerSecond = []int64{9, 11, 10}
	if got := PaceText(m); got != "" {
		t.Fatalf("a message behind said: %q", got)
	}
}
