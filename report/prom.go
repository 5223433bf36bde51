package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Prom is a small client of Prometheus' HTTP query API.
type Prom struct {
	URL  string
	HTTP *http.Client
}

// Result is one series of a query answer.
type Result struct {
	Metric map[string]string
	Value  float64      // instant queries
	Values [][2]float64 // range queries: unix seconds, value
}

// Ready reports whether Prometheus answers.
func (p Prom) Ready(ctx context.Context) bool {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/-/ready", nil)
	resp, err := p.client().Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func (p Prom) client() *http.Client {
	if p.HTTP != nil {
		return p.HTTP
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// Instant evaluates expr at t.
func (p Prom) Instant(ctx context.Context, expr string, t time.Time) ([]Result, error) {
	return p.do(ctx, "/api/v1/query", url.Values{"query": {expr}, "time": {ts(t)}})
}

// Range evaluates expr over [from, to] every step seconds. lookback (0:
// Prometheus' 5 minutes) bounds how far back a step looks for a sample: a
// short one shows an outage as missing points instead of drawing the last
// value across it.
func (p Prom) Range(ctx context.Context, expr string, from, to time.Time, step int, lookback time.Duration) ([]Result, error) {
	q := url.Values{"query": {expr}, "start": {ts(from)}, "end": {ts(to)}, "step": {strconv.Itoa(step)}}
	if lookback > 0 {
		q.Set("lookback_delta", lookback.String())
	}
	return p.do(ctx, "/api/v1/query_range", q)
}

func ts(t time.Time) string { return strconv.FormatFloat(float64(t.UnixNano())/1e9, 'f', 3, 64) }

type sample [2]json.RawMessage // [unix seconds, "value"]

func (s sample) decode() ([2]float64, error) {
	var t float64
	var v string
	if err := json.Unmarshal(s[0], &t); err != nil {
		return [2]float64{}, err
	}
	if err := json.Unmarshal(s[1], &v); err != nil {
		return [2]float64{}, err
	}
	f, err := strconv.ParseFloat(v, 64)
	return [2]float64{t, f}, err
}

func (p Prom) do(ctx context.Context, path string, q url.Values) ([]Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+path, nil)
	if err != nil {
		return nil, err
	}
	req.URL.RawQuery = q.Encode()
	resp, err := p.client().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  *sample           `json:"value"`
				Values []sample          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("prometheus %s: %w", path, err)
	}
	if body.Status != "success" {
		return nil, errors.New("prometheus: " + body.Error + " (" + q.Get("query") + ")")
	}
	out := make([]Result, 0, len(body.Data.Result))
	for _, r := range body.Data.Result {
		// NaN and ±Inf (0/0 of a rule with no traffic) are no data.
		res := Result{Metric: r.Metric}
		if r.Value != nil {
			v, err := r.Value.decode()
			if err != nil {
				return nil, err
			}
			if math.IsNaN(v[1]) || math.IsInf(v[1], 0) {
				continue
			}
			res.Value = v[1]
		}
		for _, s := range r.Values {
			v, err := s.decode()
			if err != nil {
				return nil, err
			}
			if !math.IsNaN(v[1]) && !math.IsInf(v[1], 0) {
				res.Values = append(res.Values, v)
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// Started is when the Prometheus process answering started, from its
// runtime information (/api/v1/status/runtimeinfo).
func (p Prom) Started(ctx context.Context) (time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/api/v1/status/runtimeinfo", nil)
	if err != nil {
		return time.Time{}, err
	}
	resp, err := p.client().Do(req)
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			StartTime time.Time `json:"startTime"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return time.Time{}, fmt.Errorf("prometheus runtimeinfo: %w", err)
	}
	if body.Status != "success" || body.Data.StartTime.IsZero() {
		return time.Time{}, errors.New("prometheus runtimeinfo: no start time")
	}
	return body.Data.StartTime.UTC(), nil
}
