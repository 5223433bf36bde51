package summary

// Normalize gives every field summary.json describes a value: an empty
// list or map rather than null, zero counts for the causes none had, the
// store check's "did not run" with its reason. Only what a run cannot
// have stays null: integrity with no delivery owed, rooms without a
// chatroom, watchers without a watcher. Writers call it before they
// marshal, so that the file has one shape whatever the run did.
func (s *Summary) Normalize() {
	if s.Workload == nil {
		s.Workload = []byte("[]")
	}
	if s.Logins == nil {
		s.Logins = &LoginsSummary{}
	}
	if s.Outages == nil {
		s.Outages = &Outages{}
	}
	s.Outages.Windows = orEmpty(s.Outages.Windows)
	for i := range s.Outages.Windows {
		s.Outages.Windows[i].ReconnectsPerSecond = orEmpty(s.Outages.Windows[i].ReconnectsPerSecond)
	}
	u := &s.Users
	if u.DisconnectCauses == nil {
		u.DisconnectCauses = map[string]int64{}
	}
	for _, c := range DropCauses {
		u.DisconnectCauses[c] += 0
	}
	if u.LoginFailures == nil {
		u.LoginFailures = &LoginCauses{}
	}
	if u.LoginRetries == nil {
		u.LoginRetries = &LoginCauses{}
	}
	s.Groups.BySize = orEmptyMap(s.Groups.BySize)
	m := &s.Messages
	m.PerSecond, m.PlannedPerSecond, m.OpenPerSecond = orEmpty(m.PerSecond), orEmpty(m.PlannedPerSecond), orEmpty(m.OpenPerSecond)
	m.ByClass = orEmpty(m.ByClass)
	m.ByType = orEmptyMap(m.ByType)
	d := &s.Deliveries
	if d.StoreCheck == nil {
		d.StoreCheck = &StoreCheckSummary{Skipped: NothingOwed}
	}
	d.LostSample = orEmpty(d.LostSample)
	d.ByType = orEmptyMap(d.ByType)
	d.ByClass = orEmpty(d.ByClass)
	d.ByPopulation = orEmpty(d.ByPopulation)
	s.Generator.UserRanges = orEmpty(s.Generator.UserRanges)
	s.Generator.Goroutines = orEmpty(s.Generator.Goroutines)
	s.Generator.Processes = orEmpty(s.Generator.Processes)
	s.Versions = orEmptyMap(s.Versions)
	s.Histograms = orEmptyMap(s.Histograms)
	s.Parts, s.Missing, s.Warnings = orEmpty(s.Parts), orEmpty(s.Missing), orEmpty(s.Warnings)
}

func orEmpty[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

func orEmptyMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}
