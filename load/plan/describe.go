package plan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Classes says what each class of the plan will send, before any load: its
// conversations, its messages (a rate's total rounded once, none dropped)
// and when, in a line each.
func (p *Plan) Classes() []string {
	var w struct {
		Classes []struct {
			Kind string `json:"kind"`
		} `json:"classes"`
	}
	_ = json.Unmarshal(p.Workload, &w)
	out := make([]string, 0, len(p.Streams))
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
			if s.ramp != nil {
				pace = fmt.Sprintf("ramping to %s msg/s", num(s.peakRate()))
			}
			if s.Burst {
				pace += ", each second's together at its start"
			}
			out = append(out, fmt.Sprintf("%s, %s at %s, due from %s to %s", head, count(int(s.total), "message"), pace, seconds(first), seconds(last)))
		}
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
