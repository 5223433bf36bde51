package main

import "time"

// spin keeps share of one core busy for as long as the process runs
// (-fault-busy): a slice of every 10 ms spent spinning, the rest asleep.
func spin(share float64) {
	if share <= 0 {
		return
	}
	const period = 10 * time.Millisecond
	work := time.Duration(share * float64(period))
	for {
		start := time.Now()
		for time.Since(start) < work {
		}
		time.Sleep(period - work)
	}
}
