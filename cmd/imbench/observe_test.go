package main

import (
	"net"
	"strings"
	"testing"
)

// With neither Prometheus nor Loki answering, a run goes on and says that
// its metrics and logs stay local.
func TestObserveSaysWhatIsNotShipped(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	t.Setenv("IMBENCH_PROMETHEUS", down)
	t.Setenv("IMBENCH_LOKI", down)
	t.Setenv("IMBENCH_NO_OBSERVE", "")
	o := observe(&runConfig{runID: "r1"})
	notes := strings.Join(o.notes, "\n")
	if o.promWrite != "" || o.logPush != "" || !strings.Contains(notes, "Prometheus is not up") || !strings.Contains(notes, "Loki is not up") {
		t.Fatalf("promWrite %q logPush %q notes %q", o.promWrite, o.logPush, notes)
	}
}
