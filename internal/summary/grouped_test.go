package summary

import (
	"strconv"
	"testing"
)

func TestTheConnectionsRowSaysWhyConnectionsEnded(t *testing.T) {
	u := UsersSummary{ConnectErrors: 1, Disconnects: 3, Reconnects: 3, DisconnectCauses: map[string]int64{"server_closed": 2, "heartbeat": 1}}
	want := "1 connect errors, 3 disconnects (2 closed by the server, 1 silent past the read timeout (heartbeat)), 3 reconnects"
	if got := ConnectionsText(u, strconv.FormatInt); got != want {
		t.Fatalf("%q", got)
	}
	if got := GroupsText(0, nil, 2); got != "no groups, 2 friendships" {
		t.Fatalf("%q", got)
	}
	if got := Grouped(1234567); got != "1,234,567" {
		t.Fatalf("%q", got)
	}
}
