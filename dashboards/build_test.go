package dashboards

import (
	"os"
	"testing"
)

// The committed JSON is what the code generates: `make generate` rewrites it.
func TestCommittedJSONMatchesTheCode(t *testing.T) {
	for name, d := range Build() {
		want, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v (run make generate)", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s drifted from dashboards/*.go: run make generate", name)
		}
	}
}

// Shape checks Grafana would otherwise only report when loading them.
func TestDashboardsAreWellFormed(t *testing.T) {
	uids := map[string]bool{}
	for name, d := range Build() {
		if d.UID == "" || uids[d.UID] {
			t.Errorf("%s: uid %q missing or repeated", name, d.UID)
		}
		uids[d.UID] = true
		ids := map[int]bool{}
		type rect struct{ x0, y0, x1, y1 int }
		var placed []rect
		for _, p := range d.Panels {
			if ids[p.ID] {
				t.Errorf("%s: panel id %d repeated", name, p.ID)
			}
			ids[p.ID] = true
			g := p.GridPos
			if g.W < 1 || g.X+g.W > 24 || g.H < 1 {
				t.Errorf("%s: panel %q has grid %+v", name, p.Title, g)
			}
			r := rect{g.X, g.Y, g.X + g.W, g.Y + g.H}
			for _, o := range placed {
				if r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1 {
					t.Errorf("%s: panel %q overlaps another", name, p.Title)
				}
			}
			placed = append(placed, r)
			if p.Type == "row" {
				continue
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s: panel %q has no query", name, p.Title)
			}
			for _, tg := range p.Targets {
				uid, _ := tg.Datasource["uid"].(string)
				if uid != PromUID && uid != LokiUID {
					t.Errorf("%s: panel %q queries datasource %q", name, p.Title, uid)
				}
			}
		}
	}
}
