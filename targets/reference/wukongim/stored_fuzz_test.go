package wukongim

import (
	"bytes"
	"reflect"
	"testing"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// FuzzDecodeStored reads any core payload as a stored WuKongIM message (the
// core holds every front end's payloads, and a pull or RECV reads them
// back): no panic; a payload without the magic or cut short is foreign;
// what decodes encodes back to the same bytes, but for flag bits the header
// does not keep.
func FuzzDecodeStored(f *testing.F) {
	for _, s := range []stored{
		{},
		{Flags: wire.FlagRedDot, Setting: wire.SettingTopic, Expire: 60, MessageID: 1 << 62, Origin: 7, Topic: "t", Plain: []byte("hello")},
		{MessageID: -1, Origin: 1<<64 - 1, Plain: bytes.Repeat([]byte("x"), 300)},
	} {
		f.Add(s.encode())
	}
	f.Add([]byte{'w', 'k', 1})
	f.Add(append([]byte{'w', 'k', 1}, make([]byte, 22)...))
	f.Add(append(append([]byte{'w', 'k', 1}, make([]byte, 22)...), 0xff, 0xff, 'a'))
	f.Add([]byte{'w', 'f', 1, 0x0a, 0x00}) // a Wildfire payload
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeStored(b)
		if err != nil {
			if err != errForeign || !reflect.DeepEqual(s, stored{}) {
				t.Fatalf("%v with %+v", err, s)
			}
			return
		}
		if len(s.Topic) > 0xffff || len(b) < 27+len(s.Topic) || !bytes.Equal(s.Plain, b[27+len(s.Topic):]) {
			t.Fatalf("%x decoded as %+v", b, s)
		}
		want := bytes.Clone(b)
		want[3] &= headerFlags
		if enc := s.encode(); !bytes.Equal(enc, want) {
			t.Fatalf("%x re-encoded as %x", b, enc)
		}
	})
}

// FuzzChannel maps any channel a client names to a conversation and back:
// an id the server keeps for itself or an unserved type is refused; what
// maps names the same channel to the user who named it.
func FuzzChannel(f *testing.F) {
	f.Add("u1", "u2", wire.ChannelPerson)
	f.Add("u2", "u1", wire.ChannelPerson)
	f.Add("u1", "u1", wire.ChannelPerson)
	f.Add("u1", "g1", wire.ChannelGroup)
	f.Add("u1", "room", wire.ChannelLive)
	f.Add("u1", "a@b", wire.ChannelPerson)
	f.Add("u1", "", wire.ChannelGroup)
	f.Add("u1", "x", uint8(9))
	f.Fuzz(func(t *testing.T, uid, channelID string, typ uint8) {
		k, ok := convOf(uid, channelID, typ)
		if !ok {
			if channelID != "" && validID(channelID) && servedType(typ) {
				t.Fatalf("%q type %d refused", channelID, typ)
			}
			return
		}
		if !servedType(typ) || !validID(channelID) {
			t.Fatalf("%q type %d taken", channelID, typ)
		}
		if id, ct := channelOf(k, uid); id != channelID || ct != typ {
			t.Fatalf("%q type %d for %q maps to %+v, back to %q type %d", channelID, typ, uid, k, id, ct)
		}
	})
}
