package bench

import (
	"strings"
	"testing"
)

func TestEachSidesMedianIsKeptWithEveryRound(t *testing.T) {
	run := func(gen, floor float64) *deliveryResult {
		return &deliveryResult{CPUMicrosPerDeliv: gen, Floor: &floorResult{CPUMicrosPerDeliv: floor}, OverFloor: round2(gen / floor)}
	}
	// The generator's median is round 3's 6.38, the floor's round 1's 5.43.
	runs := []*deliveryResult{run(7.27, 5.43), run(6.12, 5.94), run(6.38, 4.56)}
	med := medianRound(runs)
	if med.CPUMicrosPerDeliv != 6.38 || med.Floor != runs[0].Floor || med.OverFloor != 1.17 {
		t.Fatalf("kept generator %.2f, floor %v, ratio %.2f: want 6.38 ÷ 5.43 = 1.17", med.CPUMicrosPerDeliv, med.Floor, med.OverFloor)
	}
	if runs[2].Floor.CPUMicrosPerDeliv != 4.56 || runs[2].Rounds != nil {
		t.Fatal("the rounds' own results changed")
	}
	if len(med.Rounds) != 3 || med.Rounds[0].Ratio != 1.34 || med.Rounds[1].Generator != 6.12 || med.Rounds[2].Floor != 4.56 {
		t.Fatalf("rounds %+v: want every round's figures in the order they ran", med.Rounds)
	}
	if got := roundsText(med.Rounds); !strings.Contains(got, "medians of 3 rounds (generator 7.27, 6.12, 6.38 µs; floor 5.43, 5.94, 4.56 µs)") {
		t.Fatalf("the table says %q", got)
	}
	one := run(7, 5)
	if med := medianRound([]*deliveryResult{one}); med != one || med.Rounds != nil || roundsText(med.Rounds) != "" {
		t.Fatalf("one round: want its figures alone, got rounds %+v", med.Rounds)
	}
}
