package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Population is a named set of users that classes draw from (their from
// field): a user of it may be in several groups and pairs of several
// classes at once. Its presence is its own, for all its users; where it
// says not who is online, all are (from the start, or at loginAt).
type Population struct {
	Users int `json:"users"`
	Presence
}

// population is a Population placed in the plan: users [base, base+n).
type population struct {
	name    string
	index   int
	base, n uint32
	// pairs is the next of its pairs a pairs class drawing from it takes:
	// two classes never share a conversation.
	pairs uint64
}

// user is the population's k-th user, wrapping around.
func (p *population) user(k int) uint32 { return p.base + uint32(k%int(p.n)) }

// populations parses the workload's populations, scaled, in name order.
func (w Workload) populations() ([]Population, []string, error) {
	names := make([]string, 0, len(w.Populations))
	for n := range w.Populations {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Population
	var errs []error
	for _, n := range names {
		var p Population
		if n == "" {
			errs = append(errs, errors.New(`populations: a population needs a name, not ""`))
			continue
		}
		if err := strict(w.Populations[n], &p); err != nil {
			errs = append(errs, fmt.Errorf("population %s: %w", n, err))
			continue
		}
		if p.Users < 1 {
			errs = append(errs, fmt.Errorf("population %s: users must be 1 or more, got %d", n, p.Users))
			continue
		}
		p.Users = scaled(p.Users, w.scale(), 1)
		if p.Online == 0 && p.OnlineShare == 0 && p.Late == 0 && p.LateShare == 0 && p.Watchers == 0 {
			p.AllOnline = true // where it says not who: everyone, at loginAt where given
		}
		if err := p.Presence.check(p.Users); err != nil {
			errs = append(errs, fmt.Errorf("population %s: %w", n, err))
		}
		out = append(out, p)
	}
	return out, names, errors.Join(errs...)
}

// unsaid reports a presence that says nothing: no login and no spell.
func (p *Presence) unsaid() bool {
	return p.Online == 0 && p.OnlineShare == 0 && p.Late == 0 && p.LateShare == 0 && p.Watchers == 0 &&
		!p.AllOnline && p.LoginAt == "" && p.LoginAtShare == 0 && p.LoginOver == "" && len(p.Away) == 0
}

// place gives the populations their users, from user 0, and their presence.
func (b *builder) place(pops []Population, names []string) uint32 {
	var base uint32
	b.pops = map[string]*population{}
	for i, p := range pops {
		pp := &population{name: names[i], index: i, base: base, n: uint32(p.Users)}
		b.pops[pp.name] = pp
		users := make([]uint32, p.Users)
		for k := range users {
			users[k] = base + uint32(k)
		}
		p.Presence.assign(b, users)
		b.p.Populations = append(b.p.Populations, PopulationSpec{Name: pp.name, First: base, Users: p.Users})
		base += uint32(p.Users)
	}
	return base
}

// PopulationSpec is a population in the plan: users [First, First+Users).
type PopulationSpec struct {
	Name  string
	First uint32
	Users int
}

// PopulationOf is the index into p.Populations of user u's population, -1
// for a user of a class's own.
func (p *Plan) PopulationOf(u uint32) int {
	for i, pp := range p.Populations {
		if u >= pp.First && u < pp.First+uint32(pp.Users) {
			return i
		}
	}
	return -1
}

// Draw is where a class's members come from: a population's name, or
// {name: count, …} in the order given (a group's first members first).
type Draw []DrawPart

// DrawPart is a count of members from one population (0: as many as the
// class's members).
type DrawPart struct {
	Population string
	Count      int
}

func (d *Draw) UnmarshalJSON(raw []byte) error {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		*d = Draw{{Population: name}}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New(`takes a population's name, or {name: members from it, …}`)
	}
	var out Draw
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var n int
		if err := dec.Decode(&n); err != nil {
			return fmt.Errorf("%s takes a whole number of members", t)
		}
		if n < 1 {
			return fmt.Errorf("%s must give 1 member or more, got %d", t, n)
		}
		out = append(out, DrawPart{Population: t.(string), Count: n})
	}
	if len(out) == 0 {
		return errors.New("names no population")
	}
	*d = out
	return nil
}

func (d Draw) MarshalJSON() ([]byte, error) {
	if len(d) == 1 && d[0].Count == 0 {
		return json.Marshal(d[0].Population)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Population)
		fmt.Fprintf(&b, "%s:%d", k, p.Count)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// drawn reports counts given per population ({name: count}).
func (d Draw) drawn() bool { return len(d) > 0 && d[0].Count > 0 }

// total is the members the counts add up to.
func (d Draw) total() int {
	n := 0
	for _, p := range d {
		n += p.Count
	}
	return n
}

// names lists the populations drawn from.
func (d Draw) names() []string {
	out := make([]string, 0, len(d))
	for _, p := range d {
		out = append(out, p.Population)
	}
	return out
}

// checkDraw refuses a draw's own mistakes: a population named twice, a class
// that states presence its population states (a count below 1 is refused
// as it is read).
func checkDraw(d Draw, pres *Presence) error {
	var errs []error
	seen := map[string]bool{}
	for _, p := range d {
		if seen[p.Population] {
			errs = append(errs, fmt.Errorf("from names population %s twice", p.Population))
		}
		seen[p.Population] = true
	}
	if !pres.unsaid() {
		errs = append(errs, errors.New("a class drawn from populations takes its users' presence from them: say online, loginAt, away … on the population"))
	}
	return errors.Join(errs...)
}

// drawer is a class that may draw its users from populations.
type drawer interface{ draws() Draw }

// checkNames refuses a class drawing from a population the workload has not.
func checkNames(c Class, names []string) error {
	d, ok := c.(drawer)
	if !ok {
		return nil
	}
	for _, n := range d.draws().names() {
		if !slices.Contains(names, n) {
			known := "none: give the workload populations: {" + n + ": {users: N}}"
			if len(names) > 0 {
				known = strings.Join(names, ", ")
			}
			return fmt.Errorf("population %q is not the workload's (its populations: %s)", n, known)
		}
	}
	return nil
}

// sendersOnline refuses senders who never log in while sending and gives
// each lane the time its senders are all online (joinAt), or nil when
// every one is from the start. A closed class, a burst at an instant and
// a burst at a class's start wait for no login.
func (b *builder) sendersOnline(lanes []lane, pace *Pace) ([]time.Duration, error) {
	at, _ := offsetDuration("burstAt", pace.BurstAt)
	start, _, _ := pace.window()
	var join []time.Duration
	for i, l := range lanes {
		var when time.Duration
		for _, sg := range l {
			for _, u := range sg.senders {
				switch b.p.Login[u] {
				case Immediate:
				case Timed:
					when = max(when, b.p.LoginAt[u])
				default:
					return nil, fmt.Errorf("sender u%d of population %s is not online while the class sends (give the population's senders online, allOnline or loginAt)",
						u, b.p.Populations[b.p.PopulationOf(u)].Name)
				}
			}
		}
		if when > 0 {
			first := lanes[i][0].senders[0]
			switch {
			case pace.InFlight > 0:
				return nil, fmt.Errorf("a closed class (inFlight) sends from the start: its sender u%d logs in at %s", first, when)
			case pace.BurstAt != "" && when > at:
				return nil, fmt.Errorf("its burst at %s comes before its sender u%d logs in at %s", at, first, when)
			case pace.Lead > 0 && when > start:
				return nil, fmt.Errorf("its burst at its start (%s) needs every sender online then: u%d logs in at %s", start, first, when)
			}
			if join == nil {
				join = make([]time.Duration, len(lanes))
			}
			join[i] = when
		}
	}
	return join, nil
}

// pairAt is the population's j-th pair of n users: the neighbours first
// (i with i+1), then those two apart, and so on; every pair once, n(n-1)/2.
func pairAt(j uint64, n uint64) (a, c uint64, ok bool) {
	for k := uint64(1); k <= n/2; k++ {
		row := n
		if 2*k == n {
			row = n / 2 // i with i+n/2 is i+n/2 with i
		}
		if j < row {
			return j, (j + k) % n, true
		}
		j -= row
	}
	return 0, 0, false
}

// pairs draws count pairs of the population no class has yet, each
// written by a user who logs in while sending (the lower of the two where
// both do).
func (b *builder) drawPairs(pp *population, count int) ([][2]uint32, error) {
	writes := func(u uint32) bool { return b.p.Login[u] == Immediate || b.p.Login[u] == Timed }
	out := make([][2]uint32, 0, count)
	for len(out) < count {
		a, c, ok := pairAt(pp.pairs, uint64(pp.n))
		if !ok {
			return nil, fmt.Errorf("population %s: its %d users make %d pairs, and %d of them were left with a writer online for the class's %d",
				pp.name, pp.n, uint64(pp.n)*uint64(pp.n-1)/2, len(out), count)
		}
		pp.pairs++
		s, r := pp.base+uint32(a), pp.base+uint32(c)
		switch {
		case !writes(s) && writes(r):
			s, r = r, s
		case !writes(s):
			continue
		}
		if _, taken := b.p.pairConv[pairKey(s, r)]; taken {
			continue
		}
		out = append(out, [2]uint32{s, r})
	}
	return out, nil
}
