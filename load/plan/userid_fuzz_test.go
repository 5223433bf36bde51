package plan

import "testing"

// FuzzParseUserID reads any sender id a server reports: no panic; an id
// that names a user is that user's own id exactly (no leading zeros, no
// other prefix) and below the plan's count (at most 2^32: indexes are
// uint32); every user's id parses back.
func FuzzParseUserID(f *testing.F) {
	f.Add("imb_", "imb_u0", 10, uint32(0))
	f.Add("imb_", "imb_u9", 10, uint32(9))
	f.Add("", "u4294967296", 1<<40, uint32(1))
	f.Add("x_", "x_u007", 100, uint32(7))
	f.Add("x_", "x_u99999999999999999999", 100, uint32(7))
	f.Add("x_", "x_", 1, uint32(0))
	f.Fuzz(func(t *testing.T, prefix, id string, users int, i uint32) {
		if users < 0 {
			users = -(users + 1)
		}
		users %= 1<<32 + 1 // user indexes are uint32
		p := &Plan{Prefix: prefix, Users: users}
		if v := p.ParseUserID(id); v != -1 {
			if v < 0 || v >= int64(users) || v > 1<<32-1 || p.UserID(uint32(v)) != id {
				t.Fatalf("%q (prefix %q, %d users) parsed as %d", id, prefix, users, v)
			}
		}
		if int64(i) < int64(users) {
			if v := p.ParseUserID(p.UserID(i)); v != int64(i) {
				t.Fatalf("user %d of %d (prefix %q): %q parsed as %d", i, users, prefix, p.UserID(i), v)
			}
		}
	})
}
