package wukongim

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/imbench/imbench/internal/shared"
)

const vectorsFile = "wukongim-goproto-v1.2.3.txt"

// vectors holds the file's lines: one "NAME VALUE" each, VALUE possibly
// several space-separated fields.
type vectors map[string]string

func loadVectors(t *testing.T) vectors {
	t.Helper()
	v, err := shared.Vectors(vectorsFile)
	if err != nil {
		t.Fatalf("load vectors: %v", err)
	}
	return v
}

// loadVectorsQuiet is loadVectors for fuzz seeding, where a missing
// shared folder only costs seeds.
func loadVectorsQuiet() (vectors, error) { return shared.Vectors(vectorsFile) }

func hexField(v vectors, name string) ([]byte, error) {
	f := strings.Fields(v[name])
	if len(f) == 0 {
		return nil, errors.New("missing " + name)
	}
	return hex.DecodeString(f[0])
}

func (v vectors) field(t *testing.T, name string, i int) string {
	t.Helper()
	s, ok := v[name]
	if !ok {
		t.Fatalf("vector %s missing", name)
	}
	f := strings.Fields(s)
	if i >= len(f) {
		t.Fatalf("vector %s has no field %d: %q", name, i, s)
	}
	return f[i]
}

func (v vectors) hex(t *testing.T, name string) []byte {
	t.Helper()
	b, err := hex.DecodeString(v.field(t, name, 0))
	if err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return b
}

// The inputs §7 and the file's header document.
const (
	vecSalt      = "0123456789abcdef"
	vecPlaintext = `{"type":1,"content":"hi"}`
	vecRecvKey   = "dcfc7958bce99da5b356a1b6401030b8"
)

func vecKeys(t *testing.T, v vectors) (client, server *KeyPair) {
	t.Helper()
	var err error
	if client, err = NewKeyPairFromPrivate(v.hex(t, "clientPriv")); err != nil {
		t.Fatal(err)
	}
	if server, err = NewKeyPairFromPrivate(v.hex(t, "serverPriv")); err != nil {
		t.Fatal(err)
	}
	return client, server
}

func vecCipher(t *testing.T, v vectors) *Cipher {
	t.Helper()
	client, server := vecKeys(t, v)
	c, err := client.Cipher(server.PublicKeyBase64(), vecSalt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestVectorKeys(t *testing.T) {
	v := loadVectors(t)
	client, server := vecKeys(t, v)
	for _, k := range []struct {
		name string
		kp   *KeyPair
	}{{"clientPub", client}, {"serverPub", server}} {
		if got := hex.EncodeToString(k.kp.PublicKey()); got != v.field(t, k.name, 0) {
			t.Errorf("%s hex = %s, want %s", k.name, got, v.field(t, k.name, 0))
		}
		if got := k.kp.PublicKeyBase64(); got != v.field(t, k.name, 1) {
			t.Errorf("%s base64 = %s, want %s", k.name, got, v.field(t, k.name, 1))
		}
	}
	c2s, err := client.SharedSecret(server.PublicKeyBase64())
	if err != nil {
		t.Fatal(err)
	}
	s2c, err := server.SharedSecret(client.PublicKeyBase64())
	if err != nil {
		t.Fatal(err)
	}
	want := v.hex(t, "shared")
	if !bytes.Equal(c2s, want) || !bytes.Equal(s2c, want) {
		t.Fatalf("shared client %x server %x, want %x", c2s, s2c, want)
	}
	key := AESKey(want)
	if string(key[:]) != v.field(t, "aesKey", 0) {
		t.Fatalf("aesKey %s, want %s", key[:], v.field(t, "aesKey", 0))
	}
	if v.field(t, "aesKey", 2) != vecSalt {
		t.Fatalf("vector salt %s, tests assume %s", v.field(t, "aesKey", 2), vecSalt)
	}
}

func TestVectorPayloadAndMsgKey(t *testing.T) {
	v := loadVectors(t)
	c := vecCipher(t, v)
	payload := c.Encrypt([]byte(vecPlaintext))
	if string(payload) != v.field(t, "payloadB64", 0) {
		t.Fatalf("payload %s, want %s", payload, v.field(t, "payloadB64", 0))
	}
	plain, err := c.Decrypt(payload)
	if err != nil || string(plain) != vecPlaintext {
		t.Fatalf("decrypt = %q, %v", plain, err)
	}
	sign := AppendSendSign(nil, 1, "cmn-1", "u2", ChannelPerson, payload)
	if string(sign) != v.field(t, "signStr", 0) {
		t.Fatalf("signStr %s, want %s", sign, v.field(t, "signStr", 0))
	}
	if got := c.MsgKey(sign); got != v.field(t, "msgKey", 0) {
		t.Fatalf("msgKey %s, want %s", got, v.field(t, "msgKey", 0))
	}
	recvSign := AppendRecvSign(nil, 123456789, 7, "cmn-1", 1700000000, "u1", "u1", ChannelPerson, payload)
	if string(recvSign) != v.field(t, "recvSign", 0) {
		t.Fatalf("recvSign %s, want %s", recvSign, v.field(t, "recvSign", 0))
	}
	if got := c.MsgKey(recvSign); got != vecRecvKey {
		t.Fatalf("RECV msgKey %s, want %s", got, vecRecvKey)
	}
}

// vecPackets are the packets the vectors encode, by vector name.
func vecPackets(t *testing.T, v vectors) map[string]Packet {
	client, server := vecKeys(t, v)
	payload := []byte(v.field(t, "payloadB64", 0))
	return map[string]Packet{
		"CONNECT": Connect{Version: 5, DeviceFlag: DeviceApp, DeviceID: "dev1", UID: "u1", Token: "t1",
			ClientTimestamp: 1700000000000, ClientKey: client.PublicKeyBase64()},
		"CONNACK": Connack{Flags: FlagHasServerVersion, ServerVersion: 5, TimeDiff: -12, ReasonCode: ReasonSuccess,
			ServerKey: server.PublicKeyBase64(), Salt: vecSalt, NodeID: 1001},
		"SEND": Send{Flags: FlagRedDot, ClientSeq: 1, ClientMsgNo: "cmn-1", ChannelID: "u2", ChannelType: ChannelPerson,
			MsgKey: v.field(t, "msgKey", 0), Payload: payload},
		"SENDACK": Sendack{MessageID: 123456789, ClientSeq: 1, MessageSeq: 7, ReasonCode: ReasonSuccess},
		"RECV": Recv{Flags: FlagRedDot, MsgKey: vecRecvKey, FromUID: "u1", ChannelID: "u1", ChannelType: ChannelPerson,
			ClientMsgNo: "cmn-1", MessageID: 123456789, MessageSeq: 7, Timestamp: 1700000000, Payload: payload},
		"RECVACK":    Recvack{MessageID: 123456789, MessageSeq: 7},
		"PING":       Ping{},
		"PONG":       Pong{},
		"DISCONNECT": Disconnect{ReasonCode: ReasonConnectKick, Reason: KickReason},
	}
}

func TestVectorFrames(t *testing.T) {
	v := loadVectors(t)
	for name, p := range vecPackets(t, v) {
		t.Run(name, func(t *testing.T) {
			want := v.hex(t, name)
			got, err := p.Append([]byte{0xee}, LatestVersion) // appends after existing bytes
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != 0xee || !bytes.Equal(got[1:], want) {
				t.Fatalf("encode\n got %x\nwant %x", got[1:], want)
			}
			back, n, err := DecodeFrame(want, LatestVersion)
			if err != nil || n != len(want) {
				t.Fatalf("decode: n=%d err=%v", n, err)
			}
			if !reflect.DeepEqual(back, p) {
				t.Fatalf("decode\n got %+v\nwant %+v", back, p)
			}
		})
	}
}

// The vector RECV's msgKey is the one this connection's key gives its sign.
func TestVectorRecvMsgKeyVerifies(t *testing.T) {
	v := loadVectors(t)
	c := vecCipher(t, v)
	_, flags, body, _, err := SplitFrame(v.hex(t, "RECV"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := DecodeRecv(flags, body, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.MsgKey(r.AppendSign(nil)); got != r.MsgKey || got != vecRecvKey {
		t.Fatalf("msgKey %s, frame has %s", got, r.MsgKey)
	}
	plain, err := c.Decrypt(r.Payload)
	if err != nil || string(plain) != vecPlaintext {
		t.Fatalf("payload %q, %v", plain, err)
	}
	// And SEND's sign through the packet helper.
	_, flags, body, _, _ = SplitFrame(v.hex(t, "SEND"))
	s, err := DecodeSend(flags, body, 5)
	if err != nil {
		t.Fatal(err)
	}
	if string(s.AppendSign(nil)) != v.field(t, "signStr", 0) {
		t.Fatalf("SEND sign %s", s.AppendSign(nil))
	}
}

// "decode v4 SEND ok: true 101 u2": a SEND decodes at version 4, whose
// layout equals v5's for a plain setting. Both readings of the line are
// checked: the vector SEND read at v4, and a v4 SEND with clientSeq 101 to
// u2 encoded and decoded.
func TestVectorDecodeV4Send(t *testing.T) {
	v := loadVectors(t)
	f := strings.Fields(v["decode"]) // v4 SEND ok: true 101 u2
	if len(f) != 6 || f[0] != "v4" || f[1] != "SEND" || f[3] != "true" {
		t.Fatalf("unexpected vector line %q", v["decode"])
	}
	seq, err := strconv.ParseUint(f[4], 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	channel := f[5]
	_, flags, body, _, err := SplitFrame(v.hex(t, "SEND"))
	if err != nil {
		t.Fatal(err)
	}
	s4, err4 := DecodeSend(flags, body, 4)
	s5, err5 := DecodeSend(flags, body, 5)
	if err4 != nil || err5 != nil || !reflect.DeepEqual(s4, s5) || s4.ChannelID != channel {
		t.Fatalf("v4 %+v %v / v5 %+v %v", s4, err4, s5, err5)
	}
	enc, err := Send{Flags: FlagRedDot, ClientSeq: uint32(seq), ClientMsgNo: "cmn-" + f[4], ChannelID: channel,
		ChannelType: ChannelPerson, Payload: []byte("x")}.Append(nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := DecodeFrame(enc, 4)
	got, ok := p.(Send)
	if err != nil || !ok || got.ClientSeq != uint32(seq) || got.ChannelID != channel {
		t.Fatalf("v4 round trip %+v %v", p, err)
	}
}

// "SEND200 hdr 30dc0100 len 223": a SEND with a 220-byte body takes a
// two-byte length (dc 01): header 30 dc 01, setting 00, 223 bytes in all.
func TestVectorSend200(t *testing.T) {
	v := loadVectors(t)
	wantHdr, err := hex.DecodeString(v.field(t, "SEND200", 1))
	if err != nil {
		t.Fatal(err)
	}
	wantLen, err := strconv.Atoi(v.field(t, "SEND200", 3))
	if err != nil {
		t.Fatal(err)
	}
	// 16 fixed bytes at v5 + "m1" + "u2" + "" + 200 payload bytes = 220.
	s := Send{ClientMsgNo: "m1", ChannelID: "u2", ChannelType: ChannelPerson, Payload: bytes.Repeat([]byte{'x'}, 200)}
	got, err := s.Append(nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != wantLen || !bytes.Equal(got[:4], wantHdr) {
		t.Fatalf("SEND200: len %d header %x, want %d %x", len(got), got[:4], wantLen, wantHdr)
	}
	typ, _, body, n, err := SplitFrame(got)
	if err != nil || typ != TypeSend || n != wantLen || len(body) != 220 {
		t.Fatalf("split: %v %d %d %v", typ, n, len(body), err)
	}
}

// The key exchange from both ends yields ciphers that read each other.
func TestCipherBothEnds(t *testing.T) {
	v := loadVectors(t)
	client, server := vecKeys(t, v)
	cc, err := client.Cipher(server.PublicKeyBase64(), vecSalt)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := server.Cipher(client.PublicKeyBase64(), vecSalt)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 15, 16, 17, 100, 1000} {
		msg := bytes.Repeat([]byte{byte(n)}, n)
		got, err := sc.Decrypt(cc.Encrypt(msg))
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("len %d: %x %v", n, got, err)
		}
		if _, err := base64.StdEncoding.DecodeString(string(cc.Encrypt(msg))); err != nil {
			t.Fatal(err)
		}
	}
}
