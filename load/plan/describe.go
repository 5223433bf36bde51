package plan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Lines says, before any load, who each population is and when its users
// are online, then what each class will send: its conversations, its
// messages (a rate's total rounded once, none dropped) and when, in a line
// each.
func (p *Plan) Lines() []string {
	var w struct {
		Classes []struct {
			Kind string `json:"kind"`
		} `json:"classes"`
	}
	_ = json.Unmarshal(p.Workload, &w)
	out := p.populationLines()
	for i, s := range p.Streams {
		kind := "integration"
		if i < len(w.Classes) && w.Classes[i].Kind != "" {
			kind = w.Classes[i].Kind
		}
		convs := len(s.lanes)
		head := fmt.Sprintf("class %d, %s: %s", i+1, kind, count(convs, "conversation"))
		switch {
		case !s.Open() && s.Until > 0:
			out = append(out, fmt.Sprintf("%s, each sender %d in flight, as fast as answered for %s", head, s.InFlight, s.Until))
		case !s.Open():
			out = append(out, fmt.Sprintf("%s, %s, each sender %d in flight, as fast as answered", head, count(int(s.total), "message"), s.InFlight))
		case s.instant:
			out = append(out, fmt.Sprintf("%s, %s all due at %s, each sender's %s back to back", head, count(int(s.total), "message"), seconds(s.start),
				count(int(s.busiestSender()), "message")))
		case s.total == 0:
			out = append(out, head+", no message (its rate × its time rounds to none)")
		default:
			first, last := s.due(0), s.Length()
			each := ""
			if convs > 0 && s.peakRate() > 0 {
				each = fmt.Sprintf(" (%s a second each)", num(s.peakRate()/float64(convs)))
			}
			pace := fmt.Sprintf("%s msg/s%s", num(s.peakRate()), each)
			switch {
			case s.online && convs > 0:
				pace = fmt.Sprintf("up to %s msg/s (%s a second each while its sender is online)", num(s.peakRate()), num(s.onlineRate()))
			case s.ramp != nil:
				pace = fmt.Sprintf("ramping to %s msg/s", num(s.peakRate()))
			}
			if s.Burst {
				pace += ", each second's together at its start"
			}
			if s.lead > 0 {
				pace += fmt.Sprintf(", after %s due together at %s (each sender's %s back to back)", count(int(s.lead), "message"), seconds(s.start),
					count(int(s.busiestLead()), "message"))
			}
			out = append(out, fmt.Sprintf("%s, %s at %s, due from %s to %s", head, count(int(s.total), "message"), pace, seconds(first), seconds(last)))
		}
	}
	return out
}

// populationLines says who each population is and when its users are
// online, a line each.
func (p *Plan) populationLines() []string {
	var out []string
	for _, pp := range p.Populations {
		var now, timed, late int
		var first, last time.Duration
		for u := pp.First; u < pp.First+uint32(pp.Users); u++ {
			switch p.Login[u] {
			case Immediate:
				now++
			case Late:
				late++
			case Timed:
				at := p.LoginAt[u]
				if timed == 0 || at < first {
					first = at
				}
				last = max(last, at)
				timed++
			}
		}
		line := fmt.Sprintf("population %s: %s, %d online from the start", pp.Name, count(pp.Users, "user"), now)
		switch {
		case timed > 0 && first == last:
			line += fmt.Sprintf(", %d logging in at %s", timed, seconds(first))
		case timed > 0:
			line += fmt.Sprintf(", %d logging in from %s to %s", timed, seconds(first), seconds(last))
		}
		if late > 0 {
			line += fmt.Sprintf(", %d after sending", late)
		}
		if never := pp.Users - now - timed - late; never > 0 {
			line += fmt.Sprintf(", %d never", never)
		}
		for _, sp := range p.Spells {
			n := 0
			for _, u := range sp.Users {
				if u >= pp.First && u < pp.First+uint32(pp.Users) {
					n++
				}
			}
			if n > 0 {
				line += fmt.Sprintf("; %d away from %s to %s", n, seconds(sp.At), seconds(sp.At+sp.For))
			}
		}
		out = append(out, line)
	}
	return out
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func num(v float64) string { return strconv.FormatFloat(float64(int64(v*1000+0.5))/1000, 'f', -1, 64) }

func seconds(d time.Duration) string { return num(d.Seconds()) + " s" }
