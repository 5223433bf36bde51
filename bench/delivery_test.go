package bench

import (
	"strings"
	"testing"
)

func TestTheMedianRoundIsKeptWithEveryRound(t *testing.T) {
	run := func(gen, floor float64) *deliveryResult {
		return &deliveryResult{CPUMicrosPerDeliv: gen, Floor: &floorResult{CPUMicrosPerDeliv: floor}, OverFloor: round2(gen / floor)}
	}
	runs := []*deliveryResult{run(7.9, 5.8), run(6.9, 6.3), run(6.7, 5.4)} // 1.36, 1.10, 1.24
	med := medianRound(runs)
	if med != runs[2] {
		t.Fatalf("kept the round of ratio %.2f, want the median 1.24", med.OverFloor)
	}
	if len(med.Rounds) != 3 || med.Rounds[0].Ratio != 1.36 || med.Rounds[1].Generator != 6.9 || med.Rounds[2].Floor != 5.4 {
		t.Fatalf("rounds %+v: want every round's figures in the order they ran", med.Rounds)
	}
	if got := roundsText(med.Rounds); !strings.Contains(got, "median of 3 rounds (1.36, 1.10, 1.24)") {
		t.Fatalf("the table says %q", got)
	}
	one := run(7, 5)
	if med := medianRound([]*deliveryResult{one}); med != one || med.Rounds != nil || roundsText(med.Rounds) != "" {
		t.Fatalf("one round: want its figures alone, got rounds %+v", med.Rounds)
	}
}
