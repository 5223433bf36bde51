package lokipush

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestLinesReachLokiWithLabels(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Streams []struct {
				Stream map[string]string `json:"stream"`
				Values [][2]string       `json:"values"`
			} `json:"streams"`
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("push body: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, s := range body.Streams {
			for _, v := range s.Values {
				got = append(got, s.Stream["job"]+"/"+s.Stream["level"]+": "+v[1])
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	p := New(srv.URL, map[string]string{"job": "imbench-target"})
	var local strings.Builder
	log := slog.New(p.Handler(slog.NewTextHandler(&local, nil))).With("service", "t")
	log.Info("listening", "port", 1)
	log.Warn("queue full", "user", "u1")
	p.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []string{`imbench-target/INFO: listening service=t port=1`, `imbench-target/WARN: queue full service=t user=u1`}
	if len(got) != 2 || !contains(got, want[0]) || !contains(got, want[1]) {
		t.Fatalf("pushed %q, want %q", got, want)
	}
	if !strings.Contains(local.String(), "listening") {
		t.Fatal("the local handler did not get the record")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
