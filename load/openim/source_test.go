package openim

import (
	"context"
	"net"
	"testing"

	"github.com/imbench/imbench/load/plan"
)

// Connections take the configured source addresses in turn: each address
// brings its own ephemeral ports towards one gateway.
func TestSourceAddressesTakeTurns(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p, err := plan.Integration{Name: "s", Users: 2, LoginRatio: 1, Rate: 1}.Build()
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{APIURL: "http://127.0.0.1:1", WSURL: "ws://" + l.Addr().String(), Secret: "x",
		SourceAddrs: []net.IP{net.ParseIP("127.0.0.2"), net.ParseIP("127.0.0.3")}}, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 4 {
		c, err := d.dialer.DialContext(context.Background(), "tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.RemoteAddr().(*net.TCPAddr).IP.String())
		s.Close()
		c.Close()
	}
	want := []string{"127.0.0.2", "127.0.0.3", "127.0.0.2", "127.0.0.3"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sources %v, want %v", got, want)
		}
	}
}
