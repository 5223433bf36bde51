package runner

import (
	"fmt"
	"net"
	"os"
	"testing"
	"time"
)

// The run's loopback endpoints' ports are measured, a remote one's not;
// the process listening there is found.
func TestTargetProcsAreTheListenersOfTheRunsPorts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	tp := newTargetProcs([]string{fmt.Sprintf("ws://127.0.0.1:%d,ws://localhost:%d", port, port), "http://10.0.0.5:10002", "tcp://127.0.0.1:1"}, nil)
	if len(tp.ports) != 2 || tp.ports[0] != port || tp.ports[1] != 1 {
		t.Fatalf("ports %v", tp.ports)
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	owners := tp.current(time.Now())
	if len(owners) != 1 || owners[0].PID != os.Getpid() {
		t.Fatalf("owners %+v", owners)
	}
	if remote := newTargetProcs([]string{"http://10.0.0.5:10002"}, nil); remote.current(time.Now()) != nil {
		t.Fatal("a remote target's processes looked for here")
	}
}
