package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/imbench/imbench/load/strictjson"
)

// Workload is a test as a user states it: a list of classes, each of a
// registered kind ("integration", "groups", "pairs", "chatroom"), run side
// by side on users of their own.
type Workload struct {
	Name     string  `json:"name"`
	Purpose  string  `json:"purpose,omitempty"`
	Prefix   string  `json:"prefix,omitempty"`
	RunID    string  `json:"runId,omitempty"` // ids default to "<runId>_u<n>": fresh users every run
	Scale    float64 `json:"scale,omitempty"` // 1 (or 0) is the size as stated
	Rate     float64 `json:"rate,omitempty"`  // messages per second of all open classes; their rates scale to it
	Duration string  `json:"duration,omitempty"`
	BodySize int     `json:"bodySize,omitempty"`
	// Populations are named sets of users several classes draw from.
	Populations map[string]json.RawMessage `json:"populations,omitempty"`
	Classes     []json.RawMessage          `json:"classes"`
}

// Class is one part of a workload: it needs some users and builds their
// conversations, presence and message stream.
type Class interface {
	users() int
	// build adds the class's structure for users [base, base+users()).
	build(b *builder, base uint32) (*Stream, error)
	// rate is the class's planned messages per second (0 when closed).
	rate() float64
	// setRate changes an open class's total rate.
	setRate(r float64)
	// setDuration bounds the class by time instead of message counts.
	setDuration(d time.Duration)
}

// Kind parses one kind of class, scaled.
type Kind func(raw json.RawMessage, scale float64) (Class, error)

var kinds = struct {
	sync.Mutex
	m map[string]Kind
}{m: map[string]Kind{}}

// RegisterKind adds a kind of class; each kind's file calls it from init.
func RegisterKind(name string, k Kind) {
	kinds.Lock()
	defer kinds.Unlock()
	if _, dup := kinds.m[name]; dup {
		panic("plan: kind " + name + " registered twice")
	}
	kinds.m[name] = k
}

// KindNames lists the registered kinds.
func KindNames() []string {
	kinds.Lock()
	defer kinds.Unlock()
	out := make([]string, 0, len(kinds.m))
	for n := range kinds.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// countNames are the classes' counts: given, each is 1 or more.
var countNames = []string{"pairs", "senders", "receivers", "groups", "members", "rooms", "users", "hubs", "partners"}

// countsGiven refuses a count a class gives as 0 or less, by its name
// (a class that leaves it out takes its default, or says what it lacks).
func countsGiven(raw json.RawMessage) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return nil // the kind's decoder says what is wrong
	}
	for _, name := range countNames {
		var v float64
		if f, ok := fields[name]; ok && json.Unmarshal(f, &v) == nil && v < 1 {
			return fmt.Errorf("%s must be 1 or more, got %g", name, v)
		}
	}
	return nil
}

// strict decodes raw into dst, refusing fields dst does not have.
func strict(raw json.RawMessage, dst any) error { return strictjson.Decode(raw, dst) }

func (w Workload) scale() float64 {
	if w.Scale == 0 {
		return 1
	}
	return w.Scale
}

// scaled is max(min, round(v × s)): counts shrink or grow with the scale but
// never below what the class needs.
func scaled(v int, s float64, min int) int {
	if v == 0 {
		return 0
	}
	return max(min, int(math.Round(float64(v)*s)))
}

// timed gives a paced class the workload's duration in place of its own
// length (messages or duration), before the class checks that it has one;
// a class with stages keeps their length, one without pace (online,
// integration) is left as it is.
func (w Workload) timed(raw json.RawMessage) json.RawMessage {
	if w.Duration == "" {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["stages"]; ok {
		return raw
	}
	paced := false
	for _, k := range []string{"rate", "ratePerMinute", "totalRate", "inFlight"} {
		_, ok := m[k]
		paced = paced || ok
	}
	if !paced {
		return raw
	}
	delete(m, "messages")
	m["duration"], _ = json.Marshal(w.Duration)
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

func (w Workload) classes(pops []string) ([]Class, error) {
	if len(w.Classes) == 0 {
		return nil, errors.New("a workload needs at least one class")
	}
	if len(w.Classes) > math.MaxUint16 {
		return nil, fmt.Errorf("a workload has at most %d classes, not %d", math.MaxUint16, len(w.Classes))
	}
	var out []Class
	var errs []error
	for i, raw := range w.Classes {
		var head struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			errs = append(errs, fmt.Errorf("class %d: %v", i+1, err))
			continue
		}
		kinds.Lock()
		k := kinds.m[head.Kind]
		kinds.Unlock()
		if k == nil {
			errs = append(errs, fmt.Errorf("class %d: kind %q is unknown (known: %s)", i+1, head.Kind, strings.Join(KindNames(), ", ")))
			continue
		}
		if err := countsGiven(raw); head.Kind != "integration" && err != nil { // integration_test's flags take 0s
			errs = append(errs, fmt.Errorf("class %d (%s): %w", i+1, head.Kind, err))
			continue
		}
		c, err := k(w.timed(raw), w.scale())
		if err == nil {
			err = checkNames(c, pops)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("class %d (%s): %w", i+1, head.Kind, err))
			continue
		}
		out = append(out, c)
	}
	return out, errors.Join(errs...)
}

// Build checks the workload and builds its plan, refusing one this
// machine has not the memory for (TooLarge) before that memory runs out.
func (w Workload) Build() (p *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			tl, ok := r.(TooLarge)
			if !ok {
				panic(r)
			}
			p, err = nil, tl
		}
	}()
	return w.build()
}

func (w Workload) build() (*Plan, error) {
	if w.Scale < 0 || w.Scale > 1000 {
		return nil, fmt.Errorf("scale must be above 0 and at most 1000 (absent: 1), got %v", w.Scale)
	}
	if w.BodySize < 0 || w.BodySize > 40_000 {
		return nil, fmt.Errorf("bodySize must be within 0..40000, got %d", w.BodySize)
	}
	if err := checkIDParts(w.Prefix, w.RunID); err != nil {
		return nil, err
	}
	pops, names, perr := w.populations()
	classes, err := w.classes(names)
	if err = errors.Join(perr, err); err != nil {
		return nil, err
	}
	if w.Duration != "" {
		d, err := time.ParseDuration(w.Duration)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("duration %q is not a positive duration", w.Duration)
		}
		for _, c := range classes {
			c.setDuration(d)
		}
	}
	if w.Rate < 0 {
		return nil, fmt.Errorf("rate must not be negative, got %v", w.Rate)
	}
	if w.Rate > 0 {
		var total float64
		for _, c := range classes {
			total += c.rate()
		}
		if total == 0 {
			return nil, errors.New("rate: the workload has no open class to pace")
		}
		for _, c := range classes {
			c.setRate(c.rate() * w.Rate / total)
		}
	}
	users, convs, need := estimate(classes)
	for _, p := range pops {
		users += p.Users
		need += uint64(p.Users) * bytesPerUser
	}
	if users < 2 || users > 10_000_000 {
		return nil, fmt.Errorf("the workload needs %d users: it must be within 2..10,000,000", users)
	}
	b := newBuilder(w.Name, users)
	if b.limit > 0 && need > b.limit {
		return nil, TooLarge{HeapBytes: need, LimitBytes: b.limit, Users: users, Convs: convs, Estimate: true}
	}
	p := b.p
	p.RunID, p.Purpose, p.Prefix, p.BodySize = w.RunID, w.Purpose, w.Prefix, w.BodySize
	if p.Prefix == "" && w.RunID != "" {
		p.Prefix = w.RunID + "_"
	}
	base := b.place(pops, names)
	for i, c := range classes {
		first := len(p.Convs)
		s, err := c.build(b, base)
		if err != nil {
			return nil, fmt.Errorf("class %d: %w", i+1, err)
		}
		for j := first; j < len(p.Convs); j++ {
			p.Convs[j].Class = uint16(i)
		}
		s.index()
		p.Streams = append(p.Streams, s)
		p.Rate += c.rate()
		base += uint32(c.users())
	}
	p.spread()
	if err := p.checkIDs(); err != nil {
		return nil, err
	}
	rec := w
	rec.Classes, rec.Populations = nil, nil
	for i, p := range pops {
		raw, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		if rec.Populations == nil {
			rec.Populations = map[string]json.RawMessage{}
		}
		rec.Populations[names[i]] = raw
	}
	for _, c := range classes {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		rec.Classes = append(rec.Classes, raw)
	}
	rec.RunID, rec.Scale, rec.Rate, rec.Duration = "", 0, 0, "" // the classes below are as built: all applied
	if p.Workload, err = json.Marshal(rec); err != nil {
		return nil, err
	}
	return p, nil
}
