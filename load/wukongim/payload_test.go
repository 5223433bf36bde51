package wukongim

import (
	"testing"
	"time"

	"github.com/imbench/imbench/load/verify"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// The server encrypts a payload once for every recipient and again inside
// that recipient's msgKey, so the payload's AES blocks are a cost per
// delivery. A typical message (a few thousand users, a run of minutes)
// takes as many blocks as wkstress's 52-byte text content.
func TestATypicalPayloadIsNoLongerThanTheVendorsTools(t *testing.T) {
	ciph, err := wire.NewCipher([]byte("8e65549ac3e59ba4"), []byte("0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	wkstress := ciph.Encrypt([]byte(`{"type":1,"content":"000000000000000000000000000000"}`))
	now := time.Now().UnixMicro()
	for _, m := range []struct{ sender, conv, n uint32 }{{0, 0, 1}, {999, 0, 600}, {1295, 99, 1295}} {
		text := verify.AppendBody(nil, "20261127_145727_add130", m.sender, m.conv, m.n, now, 0)
		ours := ciph.Encrypt(appendContent(nil, text))
		if len(ours) > len(wkstress) {
			t.Errorf("%+v: %q is %d bytes encrypted, wkstress's text %d", m, text, len(ours), len(wkstress))
		}
	}
}
