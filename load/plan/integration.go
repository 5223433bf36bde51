package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Integration holds the parameters of OpenIM's integration_test (the seed's
// "Test Program A"), named after its flags:
//
//	-u users  -su superUsers  -lg largeGroups  -lgm largeGroupMembers
//	-cg commonGroups  -cgm commonGroupMembers  -lgr loginRatio
//	-sm singleMessages  -gm groupMessages  -msgitv intervalMs (per sender)
//
// with `senders` concurrent senders (integration_test runs 20).
type Integration struct {
	Kind               string  `js:"kind" json:"kind,omitempty"`
	Name               string  `js:"name" json:"name,omitempty"`
	Purpose            string  `js:"purpose" json:"purpose,omitempty"`
	Users              int     `js:"users" json:"users"`
	SuperUsers         int     `js:"superUsers" json:"superUsers"`
	LargeGroups        int     `js:"largeGroups" json:"largeGroups"`
	LargeGroupMembers  int     `js:"largeGroupMembers" json:"largeGroupMembers"` // 0: every user
	CommonGroups       int     `js:"commonGroups" json:"commonGroups"`
	CommonGroupMembers int     `js:"commonGroupMembers" json:"commonGroupMembers"`
	LoginRatio         float64 `js:"loginRatio" json:"loginRatio"`
	SingleMessages     int     `js:"singleMessages" json:"singleMessages"`
	GroupMessages      int     `js:"groupMessages" json:"groupMessages"`
	Senders            int     `js:"senders" json:"senders"`
	IntervalMs         int     `js:"intervalMs" json:"intervalMs"`
	Rate               float64 `js:"rate" json:"rate"` // overrides senders*1000/intervalMs when > 0
	Scale              float64 `js:"scale" json:"scale,omitempty"`
	BodySize           int     `js:"bodySize" json:"bodySize,omitempty"`
	Prefix             string  `js:"prefix" json:"prefix,omitempty"`
	RunID              string  `js:"runId" json:"runId,omitempty"` // ids default to "<runId>_u<n>", fresh users for every run
}

// Scaled applies Scale: users, super users and messages per conversation
// shrink or grow with it (never below 1, and never below 2 users); group
// sizes, group counts and the send rate stay as the seed has them.
func (in Integration) Scaled() Integration {
	s := in.Scale
	if s == 0 || s == 1 {
		return in
	}
	in.Users = scaled(in.Users, s, 2)
	in.SuperUsers = min(scaled(in.SuperUsers, s, 1), in.Users)
	if in.LargeGroupMembers > 0 {
		in.LargeGroupMembers = min(scaled(in.LargeGroupMembers, s, 2), in.Users)
	}
	in.SingleMessages = scaled(in.SingleMessages, s, 1)
	in.GroupMessages = scaled(in.GroupMessages, s, 1)
	return in
}

func (in Integration) validate() error {
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	check(in.Users >= 2, "users must be at least 2, got %d", in.Users)
	check(in.Users <= 10_000_000, "users must be at most 10,000,000, got %d", in.Users)
	check(in.SuperUsers >= 0 && in.SuperUsers <= in.Users, "superUsers must be within 0..users, got %d", in.SuperUsers)
	check(in.LargeGroups >= 0 && in.CommonGroups >= 0, "group counts must not be negative")
	check(in.CommonGroups == 0 || (in.CommonGroupMembers >= 2 && in.CommonGroupMembers <= in.Users),
		"commonGroupMembers must be within 2..users, got %d", in.CommonGroupMembers)
	check(in.LargeGroupMembers >= 0 && in.LargeGroupMembers <= in.Users, "largeGroupMembers must be within 0..users")
	check(in.LoginRatio > 0 && in.LoginRatio <= 1, "loginRatio must be in (0, 1], got %v", in.LoginRatio)
	check(in.SingleMessages >= 0 && in.GroupMessages >= 0, "message counts must not be negative")
	check(in.Rate > 0 || (in.Senders > 0 && in.IntervalMs > 0), "a rate, or senders and intervalMs, must be positive")
	check(in.Scale >= 0 && in.Scale <= 1000, "scale must be above 0 and at most 1000 (absent: 1), got %v", in.Scale)
	check(in.BodySize >= 0 && in.BodySize <= 40_000, "bodySize must be within 0..40000, got %d", in.BodySize)
	if err := checkIDParts(in.Prefix, in.RunID); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func init() {
	RegisterKind("integration", func(raw json.RawMessage, scale float64) (Class, error) {
		var in Integration
		if err := strict(raw, &in); err != nil {
			return nil, err
		}
		if in.Name != "" || in.Purpose != "" || in.Scale != 0 || in.BodySize != 0 || in.Prefix != "" || in.RunID != "" {
			return nil, errors.New("name, purpose, scale, bodySize, prefix and runId belong to the workload, not to a class")
		}
		in.Scale = scale
		in = in.Scaled()
		in.Scale = 0 // applied
		return &in, in.validate()
	})
}

// Workload is the one-class workload of these parameters.
func (in Integration) Workload() (Workload, error) {
	w := Workload{Name: in.Name, Purpose: in.Purpose, Prefix: in.Prefix, RunID: in.RunID, Scale: in.Scale, BodySize: in.BodySize}
	cls := in
	cls.Kind, cls.Name, cls.Purpose, cls.Prefix, cls.RunID, cls.Scale, cls.BodySize = "integration", "", "", "", "", 0, 0
	raw, err := json.Marshal(cls)
	w.Classes = []json.RawMessage{raw}
	return w, err
}

// Build builds the plan of these parameters.
func (in Integration) Build() (*Plan, error) {
	w, err := in.Workload()
	if err != nil {
		return nil, err
	}
	return w.Build()
}

func (in *Integration) users() int { return in.Users }

// conversations are its friendships (each super user with every user
// after it), large groups and the common groups of the users who log in
// first.
func (in *Integration) conversations() int64 {
	n, su := int64(in.Users), int64(in.SuperUsers)
	online := max(int64(math.Floor(float64(in.Users)*in.LoginRatio)), 1)
	return su*n - su*(su+1)/2 + int64(in.LargeGroups) + online*int64(in.CommonGroups)
}

func (in *Integration) rate() float64 {
	if in.Rate > 0 {
		return in.Rate
	}
	return float64(in.Senders) * 1000 / float64(in.IntervalMs)
}

func (in *Integration) setRate(r float64) { in.Rate = r }

func (in *Integration) setDuration(time.Duration) {} // its length is its message counts

// build lays the integration test out on users [base, base+Users).
func (in *Integration) build(b *builder, base uint32) (*Stream, error) {
	p := b.p
	key := "" // group keys as OpenIM's test program names them; a second class needs its own
	if base > 0 {
		key = "c" + strconv.FormatUint(uint64(base), 10) + "_"
	}
	online := int(math.Floor(float64(in.Users) * in.LoginRatio))
	if online < 1 {
		online = 1
	}
	for u := 0; u < in.Users; u++ {
		p.Login[base+uint32(u)] = Late
		if u < online {
			p.Login[base+uint32(u)] = Immediate
		}
	}
	n := uint32(in.Users)

	// Super users befriend every user after them.
	friendsOf := make([][]uint32, in.Users)
	for i := uint32(0); i < uint32(in.SuperUsers); i++ {
		for j := i + 1; j < n; j++ {
			b.friend(base+i, base+j)
			friendsOf[i] = append(friendsOf[i], j)
			friendsOf[j] = append(friendsOf[j], i)
		}
	}

	// Large groups hold every user (or the first lgm); owners rotate.
	var large []uint32
	lgm := in.LargeGroupMembers
	if lgm == 0 {
		lgm = in.Users
	}
	for g := 0; g < in.LargeGroups; g++ {
		members := make([]uint32, lgm)
		for i := range members {
			members[i] = base + uint32(i)
		}
		large = append(large, b.group(GroupSpec{Key: key + "lg" + strconv.Itoa(g), Large: true,
			Owner: base + uint32(g%lgm), Members: members}))
	}

	// Each user who logs in first creates its common groups with the users
	// that follow it.
	own := make([][]uint32, in.Users)
	for u := 0; u < online; u++ {
		for c := 0; c < in.CommonGroups; c++ {
			members := make([]uint32, 0, in.CommonGroupMembers)
			for k := 0; k < in.CommonGroupMembers; k++ {
				members = append(members, base+uint32((u+k)%in.Users))
			}
			sortU32(members)
			own[u] = append(own[u], b.group(GroupSpec{Key: fmt.Sprintf("%scg%d_%d", key, u, c),
				Owner: base + uint32(u), Members: members}))
		}
	}

	// Senders are the users who log in first: sm messages to every friend,
	// then gm to every large group and every group they created; each
	// sender's queue is one lane.
	lanes := make([]lane, 0, online)
	for u := 0; u < online; u++ {
		me := []uint32{base + uint32(u)}
		var l lane
		add := func(conv uint32, count int) {
			b.spend()
			if count > 0 {
				l = append(l, segment{conv: conv, senders: me, count: uint32(count)})
			}
		}
		for _, f := range friendsOf[u] {
			c, _ := p.SingleConv(base+uint32(u), base+f)
			add(c, in.SingleMessages)
		}
		for _, c := range large {
			if int(u) < lgm {
				add(c, in.GroupMessages)
			}
		}
		for _, c := range own[u] {
			add(c, in.GroupMessages)
		}
		lanes = append(lanes, l)
	}
	s := newStream(lanes)
	s.Interval = time.Duration(float64(time.Second) / in.rate())
	return s, nil
}

func sortU32(a []uint32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
