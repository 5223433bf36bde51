package wildfire

import (
	"context"
	"testing"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// BreakSession gives user u a session whose key is not the server's: its
// CONNECT password then decrypts to nothing the server accepts.
func BreakSession(t *testing.T, d *Driver, u uint32) {
	t.Helper()
	s, err := d.session(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.NewCipher("0123456789abcdef-not-the-secret")
	if err != nil {
		t.Fatal(err)
	}
	d.smu.Lock()
	d.sessions[u] = &session{clientID: s.clientID, desToken: s.desToken, cipher: c}
	d.smu.Unlock()
}

// QuickRechecks makes a timed-out removal's first rechecks every d.
func QuickRechecks(t *testing.T, d time.Duration) {
	old := confirmEvery
	confirmEvery = d
	t.Cleanup(func() { confirmEvery = old })
}
