package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/internal/loopback"
	"github.com/imbench/imbench/load/engine"
)

// storm asks the target to drop every connection at once, StormAt after
// sending began: a reconnect storm. Only the reference target answers it
// (POST /fault/storm beside its /metrics); with a real server, restart its
// gateways by hand at that moment instead (see the runbooks).
type storm struct {
	at    time.Duration
	url   string
	once  sync.Once
	fired atomic.Bool
}

// newStorm checks the storm options before any load: a time needs the
// target's endpoint, on loopback unless the target may be remote.
func newStorm(at, endpoint string, allowRemote bool) (*storm, error) {
	if at == "" {
		return nil, nil
	}
	d, err := time.ParseDuration(at)
	if err != nil || d <= 0 {
		return nil, fmt.Errorf("stormAt %q is not a positive duration", at)
	}
	if endpoint == "" {
		return nil, fmt.Errorf("stormAt %s needs a storm endpoint, which only the reference target has: against a real server set IM_STORM_AT=off "+
			"and restart its gateway by hand during the send (runbooks/openim.md); a reference target elsewhere takes IM_STORM_URL=http://<its metrics address>/fault/storm", at)
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("stormUrl %q is not an http URL", endpoint)
	}
	if !allowRemote {
		if err := loopback.Require(endpoint); err != nil {
			return nil, fmt.Errorf("stormUrl: %w", err)
		}
	}
	return &storm{at: d, url: endpoint}, nil
}

// schedule arms the storm once per process, from when sending begins. A
// storm the target refuses ends the run: without it the scenario would
// pass having measured nothing.
func (s *storm) schedule(ctx context.Context, sending time.Time, sh *engine.Shared) {
	if s == nil {
		return
	}
	s.once.Do(func() {
		go func() {
			select {
			case <-time.After(time.Until(sending.Add(s.at))):
			case <-ctx.Done():
				return
			}
			n, err := s.fire(ctx)
			if err != nil {
				sh.Fail(fmt.Errorf("the storm asked of the target failed: %w", err))
				return
			}
			s.fired.Store(true)
			sh.Logf("storm: the target dropped %d connections at once", n)
		}()
	})
}

func (s *storm) fire(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(""))
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Dropped int `json:"dropped"`
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s answered %s", s.url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, fmt.Errorf("%s: %w", s.url, err)
	}
	return r.Dropped, nil
}

// warning says so when the storm never came: the run ended before its time.
func (s *storm) warning() string {
	if s == nil || s.fired.Load() {
		return ""
	}
	return fmt.Sprintf("no storm: it was asked for %s after sending began, and the run had ended by then", s.at)
}
