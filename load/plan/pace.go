package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Pace says how fast and how long a class sends.
//
// Open pacing: Rate (per second) or RatePerMinute per conversation, or
// TotalRate over the class, or Stages ramping the class's total rate from
// StartRate (their length is the test's); messages are due on a schedule
// whether or not the server keeps up, and the lag behind it is measured. Closed pacing:
// InFlight messages per sender, each sent as soon as one is acknowledged;
// the result is the rate achieved.
//
// Shape (open pacing): PaceEven spaces the class's messages evenly;
// PaceBurst sends each second's messages together at the start of that
// second, the way the vendors' stress tools (wkstress) send.
//
// Length: Messages per sender per conversation, or Duration.
type Pace struct {
	Shape         string  `json:"pace,omitempty"`
	Rate          float64 `json:"rate,omitempty"`
	RatePerMinute float64 `json:"ratePerMinute,omitempty"`
	TotalRate     float64 `json:"totalRate,omitempty"`
	StartRate     float64 `json:"startRate,omitempty"`
	Stages        []Stage `json:"stages,omitempty"`
	InFlight      int     `json:"inFlight,omitempty"`
	Messages      int     `json:"messages,omitempty"`
	Duration      string  `json:"duration,omitempty"`
	// StartAt and StopAt put an open class on the run's timeline: its
	// messages fall due from StartAt after sending begins (0: at once)
	// until StopAt, which then sets its length.
	StartAt string `json:"startAt,omitempty"`
	StopAt  string `json:"stopAt,omitempty"`
	// BurstAt sends the class's messages (Messages per sender per
	// conversation) all at one instant, this long after sending begins:
	// each sender writes its own back to back, as fast as its connection
	// takes them.
	BurstAt string `json:"burstAt,omitempty"`
	// Lead is a burst at an open class's start: this many messages of each
	// conversation (its senders taking turns) fall due together at its
	// startAt, written back to back, before its rate goes on; they add to
	// what the rate sends.
	Lead int `json:"burst,omitempty"`
}

func (p *Pace) check() error {
	if p.BurstAt != "" {
		return p.checkBurst()
	}
	var errs []error
	rates := 0
	if len(p.Stages) > 0 {
		rates++
		if _, err := newRamp(p.StartRate, p.Stages); err != nil {
			errs = append(errs, err)
		}
	} else if p.StartRate != 0 {
		errs = append(errs, errors.New("startRate goes with stages"))
	}
	for _, r := range []float64{p.Rate, p.RatePerMinute, p.TotalRate} {
		if r < 0 {
			errs = append(errs, errors.New("rates must not be negative"))
		}
		if r > 0 {
			rates++
		}
	}
	switch {
	case p.InFlight < 0 || p.InFlight > 1000:
		errs = append(errs, fmt.Errorf("inFlight must be within 1..1000 (0 or absent: open pacing), got %d", p.InFlight))
	case p.InFlight > 0 && rates > 0:
		errs = append(errs, errors.New("a closed class (inFlight) takes no rate: it sends as fast as acknowledged"))
	case p.InFlight == 0 && rates != 1:
		errs = append(errs, errors.New("give one of rate, ratePerMinute, totalRate, stages (or inFlight for closed pacing)"))
	}
	switch {
	case len(p.Stages) > 0:
		if p.Messages > 0 || p.Duration != "" || p.StopAt != "" {
			errs = append(errs, errors.New("stages set the length: no messages, duration or stopAt with them"))
		}
	case p.StopAt != "":
		if p.Messages > 0 || p.Duration != "" {
			errs = append(errs, errors.New("stopAt sets the length: no messages or duration with it"))
		}
	case (p.Messages > 0) == (p.Duration != ""):
		errs = append(errs, errors.New("give messages (per sender per conversation), a duration or a stopAt, one of them"))
	}
	switch {
	case p.Lead < 0 || p.Lead > 1000:
		errs = append(errs, fmt.Errorf("burst must be within 1..1000 messages a conversation (0 or absent: none), got %d", p.Lead))
	case p.Lead > 0 && (p.InFlight > 0 || len(p.Stages) > 0 || p.Shape == PaceBurst):
		errs = append(errs, errors.New("burst leads an open class's steady rate: not with inFlight, stages or pace 'burst'"))
	}
	if (p.StartAt != "" || p.StopAt != "") && p.InFlight > 0 {
		errs = append(errs, errors.New("startAt and stopAt put an open class on the timeline: a closed class (inFlight) sends from the start"))
	}
	if _, _, err := p.window(); err != nil {
		errs = append(errs, err)
	}
	if p.Messages < 0 {
		errs = append(errs, fmt.Errorf("messages must not be negative, got %d", p.Messages))
	}
	if _, err := p.duration(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case p.Shape != "" && p.Shape != PaceEven && p.Shape != PaceBurst:
		errs = append(errs, fmt.Errorf("pace must be %q or %q, got %q", PaceEven, PaceBurst, p.Shape))
	case p.Shape == PaceBurst && p.InFlight > 0:
		errs = append(errs, errors.New("a closed class (inFlight) has no pace: it sends as fast as acknowledged"))
	}
	return errors.Join(errs...)
}

// checkBurst checks a class sent at one instant: messages, and no pace.
func (p *Pace) checkBurst() error {
	var errs []error
	if _, err := offsetDuration("burstAt", p.BurstAt); err != nil {
		errs = append(errs, err)
	}
	if p.Rate > 0 || p.RatePerMinute > 0 || p.TotalRate > 0 || len(p.Stages) > 0 || p.InFlight > 0 || p.Shape != "" {
		errs = append(errs, errors.New("burstAt sends the class's messages at one instant: no rate, stages, inFlight or pace with it"))
	}
	if p.Duration != "" || p.StartAt != "" || p.StopAt != "" {
		errs = append(errs, errors.New("burstAt is the class's one instant: no duration, startAt or stopAt with it"))
	}
	if p.Messages < 1 || p.Messages > 1000 {
		errs = append(errs, fmt.Errorf("burstAt takes messages (per sender per conversation, 1..1000), got %d", p.Messages))
	}
	return errors.Join(errs...)
}

// The shapes of open pacing.
const (
	PaceEven  = "even"
	PaceBurst = "burst"
)

// window is the class's place on the timeline: when its messages begin
// to fall due, and when they stop (0: its length decides).
func (p *Pace) window() (start, stop time.Duration, err error) {
	if start, err = offsetDuration("startAt", p.StartAt); err != nil {
		return 0, 0, err
	}
	if stop, err = offsetDuration("stopAt", p.StopAt); err != nil {
		return 0, 0, err
	}
	if p.StopAt != "" && stop <= start {
		return 0, 0, fmt.Errorf("stopAt %s is not after startAt %s", p.StopAt, start)
	}
	return start, stop, nil
}

func (p *Pace) duration() (time.Duration, error) {
	if start, stop, err := p.window(); err == nil && stop > 0 {
		return stop - start, nil
	}
	if p.Duration == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(p.Duration)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("duration %q is not a positive duration", p.Duration)
	}
	return d, nil
}

// convRate is the rate of one of convs conversations.
func (p *Pace) convRate(convs int) float64 {
	switch {
	case len(p.Stages) > 0 && convs > 0:
		r, _ := newRamp(p.StartRate, p.Stages)
		return r.total() / r.length().Seconds() / float64(convs) // the average

	case p.Rate > 0:
		return p.Rate
	case p.RatePerMinute > 0:
		return p.RatePerMinute / 60
	case p.TotalRate > 0 && convs > 0:
		return p.TotalRate / float64(convs)
	}
	return 0
}

// setTotal sets the class's total rate; a ramp keeps its shape.
func (p *Pace) setTotal(total float64, convs int) {
	if len(p.Stages) > 0 {
		f := total / (p.convRate(convs) * float64(convs))
		p.StartRate *= f
		for i := range p.Stages {
			p.Stages[i].Target *= f
		}
		return
	}
	p.Rate, p.RatePerMinute, p.TotalRate = total/float64(convs), 0, 0
}

// setDuration bounds the class by time; a ramp keeps its own length, a
// class with a stopAt its own window.
func (p *Pace) setDuration(d time.Duration) {
	if len(p.Stages) == 0 && p.StopAt == "" && p.BurstAt == "" {
		p.Messages, p.Duration = 0, d.String()
	}
}

// perConversation shares out the messages of a class of convs
// conversations with n senders each: n × Messages each, or what the class's
// rate sends in the duration (closed and by duration: unbounded, the time
// stops it). A rate's total is rounded once for the class, not per
// conversation, so a step plans the rate it asks even where each
// conversation carries less than a message a second.
func (p *Pace) perConversation(n, convs int) (shares, error) {
	var total float64
	switch {
	case p.Messages > 0:
		total = float64(n) * float64(p.Messages) * float64(convs)
	case p.InFlight > 0:
		return shares{each: math.MaxUint32}, nil // until the duration ends
	case len(p.Stages) > 0:
		r, _ := newRamp(p.StartRate, p.Stages)
		total = math.Round(r.total())
	default:
		d, _ := p.duration()
		total = math.Round(p.convRate(convs) * float64(convs) * d.Seconds())
	}
	s := shares{convs: uint64(max(convs, 1))}
	s.each, s.rest = uint64(total)/s.convs, uint64(total)%s.convs
	s.each += uint64(p.Lead)
	total += float64(p.Lead) * float64(s.convs)
	if most := math.Ceil(total / float64(s.convs)); most >= math.MaxUint32 {
		return shares{}, fmt.Errorf("%.0f messages in one conversation are too many (at most %d): spread them over more conversations", most, uint32(math.MaxUint32-1))
	}
	return s, nil
}

// shares are a class's messages over its conversations: each carries
// each, and rest more go one apiece to conversations spread evenly over them.
type shares struct {
	each, rest, convs uint64
}

// of is conversation i's count.
func (s shares) of(i int) uint32 {
	if s.rest == 0 {
		return uint32(s.each)
	}
	k := uint64(i)
	return uint32(s.each + (k+1)*s.rest/s.convs - k*s.rest/s.convs)
}

// stream paces a class's lanes (one lane per conversation).
func (p *Pace) stream(lanes []lane, convs int) *Stream {
	s := newStream(lanes)
	if p.InFlight > 0 {
		s.InFlight = p.InFlight
		if p.Messages == 0 {
			s.Until, _ = p.duration()
			s.total = 0
		}
		return s
	}
	if p.BurstAt != "" {
		s.start, _ = offsetDuration("burstAt", p.BurstAt)
		s.instant = true
		return s
	}
	s.Burst = p.Shape == PaceBurst
	s.start, _, _ = p.window()
	s.lead = int64(p.Lead) * int64(len(lanes))
	if len(p.Stages) > 0 {
		s.ramp, _ = newRamp(p.StartRate, p.Stages)
		return s
	}
	s.Interval = time.Duration(float64(time.Second) / (p.convRate(convs) * float64(convs)))
	return s
}

// Presence says which receivers of a conversation are online: Online (a
// count) or OnlineShare of them for the whole test, then Late ones that
// log in after sending and pull what they missed, then Watchers, online
// users placed last among receivers that are otherwise never online (a
// seed's watching phone); the rest are registered and never log in.
// LoginAt moves the online ones' login (LoginAtShare of them, all where
// not given) to a time after sending begins: they pull what they missed,
// then take pushes.
type Presence struct {
	Online       int     `json:"online,omitempty"`
	OnlineShare  float64 `json:"onlineShare,omitempty"`
	Late         int     `json:"late,omitempty"`
	LateShare    float64 `json:"lateShare,omitempty"`
	Watchers     int     `json:"watchers,omitempty"`
	AllOnline    bool    `json:"allOnline,omitempty"`
	LoginAt      string  `json:"loginAt,omitempty"`
	LoginAtShare float64 `json:"loginAtShare,omitempty"`
	// LoginOver spreads the timed logins evenly over this long from LoginAt
	// (from the start of sending where LoginAt is not given): the last
	// logs in at its end.
	LoginOver string `json:"loginOver,omitempty"`
	Away      []Away `json:"away,omitempty"`
}

// Away is a spell logged out: the receivers online by its start, from the
// start or at their login's time (Share of them, all where not given), log
// out At after sending begins and log in again For later, pulling what
// they missed.
type Away struct {
	At    string  `json:"at"`
	For   string  `json:"for"`
	Share float64 `json:"share,omitempty"`
}

// spell is an Away parsed.
func (a Away) spell() (at, dur time.Duration, err error) {
	at, err = time.ParseDuration(a.At)
	if err != nil || at <= 0 {
		return 0, 0, fmt.Errorf("away: at %q is not a positive duration (the time after sending begins at which they log out)", a.At)
	}
	dur, err = time.ParseDuration(a.For)
	if err != nil || dur <= 0 {
		return 0, 0, fmt.Errorf("away: for %q is not a positive duration (how long they stay logged out)", a.For)
	}
	if a.Share < 0 || a.Share > 1 {
		return 0, 0, fmt.Errorf("away: share must be within 0..1, got %g", a.Share)
	}
	return at, dur, nil
}

func (p *Presence) check(receivers int) error {
	var errs []error
	if p.OnlineShare < 0 || p.OnlineShare > 1 || p.LateShare < 0 || p.LateShare > 1 || p.LoginAtShare < 0 || p.LoginAtShare > 1 {
		errs = append(errs, errors.New("onlineShare, lateShare and loginAtShare must be within 0..1"))
	}
	if p.Online < 0 || p.Late < 0 || p.Watchers < 0 {
		errs = append(errs, errors.New("online, late and watchers must not be negative"))
	}
	if on, late := p.counts(receivers); on+late+p.Watchers > receivers {
		errs = append(errs, fmt.Errorf("online %d + late %d + watchers %d exceed the %d receivers", on, late, p.Watchers, receivers))
	}
	if _, err := p.loginAt(); err != nil {
		errs = append(errs, err)
	}
	if _, err := p.loginOver(); err != nil {
		errs = append(errs, err)
	}
	if p.LoginAtShare > 0 && p.LoginAt == "" && p.LoginOver == "" {
		errs = append(errs, errors.New("loginAtShare goes with loginAt or loginOver"))
	}
	for _, a := range p.Away {
		if _, _, err := a.spell(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// loginOver is LoginOver parsed: 0 where not given.
func (p *Presence) loginOver() (time.Duration, error) {
	return positiveDuration("loginOver", p.LoginOver, "the window the timed logins are spread over")
}

// loginAt is LoginAt parsed: 0 where not given.
func (p *Presence) loginAt() (time.Duration, error) {
	return positiveDuration("loginAt", p.LoginAt, "the time after sending begins at which the online receivers log in")
}

// positiveDuration parses an optional positive duration field (0 where not
// given); why says what it is.
func positiveDuration(name, v, why string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s %q is not a positive duration (%s)", name, v, why)
	}
	return d, nil
}

// offsetDuration parses an optional time after sending begins (0 where
// not given, or at once).
func offsetDuration(name, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s %q is not a duration from the start of sending (30s, 1m)", name, v)
	}
	return d, nil
}

func (p *Presence) counts(receivers int) (online, late int) {
	online, late = p.Online, p.Late
	if p.AllOnline {
		online = receivers
	}
	if p.OnlineShare > 0 {
		online = int(math.Round(p.OnlineShare * float64(receivers)))
	}
	if p.LateShare > 0 {
		late = int(math.Round(p.LateShare * float64(receivers)))
	}
	return online, late
}

// timedCount is how many of the online receivers log in at LoginAt.
func (p *Presence) timedCount(online int) int {
	if p.LoginAt == "" && p.LoginOver == "" {
		return 0
	}
	if p.LoginAtShare > 0 {
		return int(math.Round(p.LoginAtShare * float64(online)))
	}
	return online
}

// assign sets the login of receivers rs in order: online (the timed ones
// last among them), late, never, watchers last.
func (p *Presence) assign(b *builder, rs []uint32) {
	online, late := p.counts(len(rs))
	timed := p.timedCount(online)
	at, _ := p.loginAt()
	over, _ := p.loginOver()
	// The timed ones' logins, evenly over the window, the last at its end.
	loginOf := func(i int) time.Duration {
		if i < online-timed {
			return 0
		}
		k := i - (online - timed)
		return at + time.Duration(int64(over)*int64(k+1)/int64(timed))
	}
	// A spell takes the online receivers on by its start, whenever they
	// logged in (Share of them, all where not given).
	for _, a := range p.Away {
		from, dur, _ := a.spell()
		n := 0
		for n < online && loginOf(n) < from {
			n++
		}
		if a.Share > 0 {
			n = int(math.Round(a.Share * float64(n)))
		}
		b.p.Spells = append(b.p.Spells, Spell{At: from, For: dur, Users: slices.Clone(rs[:n])})
	}
	for i, u := range rs {
		switch {
		case i < online-timed:
			b.p.Login[u] = Immediate
		case i < online:
			b.timed(u, loginOf(i))
		case i < online+late:
			b.p.Login[u] = Late
		case i >= len(rs)-p.Watchers:
			b.p.Login[u] = Immediate
			b.watch(u)
		default:
			b.p.Login[u] = Never
		}
	}
}
