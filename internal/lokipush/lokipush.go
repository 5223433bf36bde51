// Package lokipush sends a program's slog records to Loki's push API as
// well as to its usual handler: batched once a second, never blocking the
// program (a full queue drops lines and says how many).
package lokipush

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"
)

type entry struct {
	t     time.Time
	level string
	line  string
}

// Pusher owns the queue and the push loop.
type Pusher struct {
	url    string
	labels map[string]string
	client *http.Client
	ch     chan entry
	done   chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	dropped int
}

// New starts pushing to url (…/loki/api/v1/push) with the given stream labels.
func New(url string, labels map[string]string) *Pusher {
	p := &Pusher{url: url, labels: labels, client: &http.Client{Timeout: 5 * time.Second},
		ch: make(chan entry, 10000), done: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

// Close pushes what is queued and stops.
func (p *Pusher) Close() {
	close(p.done)
	p.wg.Wait()
}

// Line queues one line at level (INFO, WARN, ERROR), as a record would be.
func (p *Pusher) Line(level, line string) {
	select {
	case p.ch <- entry{t: time.Now(), level: level, line: line}:
	default:
		p.mu.Lock()
		p.dropped++
		p.mu.Unlock()
	}
}

// Handler wraps inner: every record goes to inner and to Loki.
func (p *Pusher) Handler(inner slog.Handler) slog.Handler { return &handler{p: p, inner: inner} }

func (p *Pusher) loop() {
	defer p.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var batch []entry
	for {
		select {
		case e := <-p.ch:
			batch = append(batch, e)
			if len(batch) < 1000 {
				continue
			}
		case <-t.C:
		case <-p.done:
			for {
				select {
				case e := <-p.ch:
					batch = append(batch, e)
					continue
				default:
				}
				break
			}
			p.push(batch)
			return
		}
		p.push(batch)
		batch = batch[:0]
	}
}

func (p *Pusher) push(batch []entry) {
	p.mu.Lock()
	if p.dropped > 0 {
		batch = append(batch, entry{t: time.Now(), level: "WARN", line: fmt.Sprintf("lokipush dropped %d lines: queue full", p.dropped)})
		p.dropped = 0
	}
	p.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	byLevel := map[string][][2]string{}
	for _, e := range batch {
		byLevel[e.level] = append(byLevel[e.level], [2]string{strconv.FormatInt(e.t.UnixNano(), 10), e.line})
	}
	type stream struct {
		Stream map[string]string `json:"stream"`
		Values [][2]string       `json:"values"`
	}
	var body struct {
		Streams []stream `json:"streams"`
	}
	for level, values := range byLevel {
		labels := map[string]string{"level": level}
		for k, v := range p.labels {
			labels[k] = v
		}
		body.Streams = append(body.Streams, stream{Stream: labels, Values: values})
	}
	raw, _ := json.Marshal(body)
	resp, err := p.client.Post(p.url, "application/json", bytes.NewReader(raw))
	if err == nil {
		resp.Body.Close()
	}
	// A Loki that is down loses these lines; the program's own log keeps them.
}

type handler struct {
	p     *Pusher
	inner slog.Handler
	attrs []slog.Attr
	group string
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	var buf bytes.Buffer
	var th slog.Handler = slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: dropTimeAndLevel})
	if len(h.attrs) > 0 {
		th = th.WithAttrs(h.attrs)
	}
	if h.group != "" {
		th = th.WithGroup(h.group)
	}
	_ = th.Handle(ctx, r)
	line := r.Message
	if attrs := bytes.TrimSpace(buf.Bytes()); len(attrs) > 0 {
		line += " " + string(attrs)
	}
	e := entry{t: r.Time, level: r.Level.String(), line: line}
	select {
	case h.p.ch <- e:
	default:
		h.p.mu.Lock()
		h.p.dropped++
		h.p.mu.Unlock()
	}
	return h.inner.Handle(ctx, r)
}

// The log store has the time and the level already; the message leads the
// line as plain text, the attributes follow it as logfmt.
func dropTimeAndLevel(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
		return slog.Attr{}
	}
	return a
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	c.inner = h.inner.WithAttrs(as)
	return &c
}

func (h *handler) WithGroup(name string) slog.Handler {
	c := *h
	c.group = name
	c.inner = h.inner.WithGroup(name)
	return &c
}
