package wildfire

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// vectors are testdata/vectors.txt's "NAME VALUE" lines (see its header and
// gen_vectors.py for how each was made).
type vectors map[string]string

func loadVectors(t testing.TB) vectors {
	t.Helper()
	f, err := os.Open("testdata/vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v := vectors{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		k, val, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("malformed vector line %q", line)
		}
		v[k] = val
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return v
}

func (v vectors) str(t testing.TB, name string) string {
	t.Helper()
	s, ok := v[name]
	if !ok {
		t.Fatalf("vector %s missing", name)
	}
	return s
}

func (v vectors) hex(t testing.TB, name string) []byte {
	t.Helper()
	b, err := hex.DecodeString(v.str(t, name))
	if err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return b
}

func (v vectors) int(t testing.TB, name string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(v.str(t, name), 10, 64)
	if err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return n
}

func (v vectors) hour(t testing.TB) Hour { return Hour(v.int(t, "HOUR")) }

func sessionCipher(t testing.TB, v vectors) *Cipher {
	t.Helper()
	c, err := NewCipher(v.str(t, "SECRET"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func equalHex(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %x\nwant %x", what, got, want)
	}
}

func TestVectorHourPrefix(t *testing.T) {
	v := loadVectors(t)
	equalHex(t, "hour prefix", AppendHourPrefix(nil, v.hour(t)), v.hex(t, "HOUR_PREFIX"))
}

func TestVectorAES(t *testing.T) {
	v := loadVectors(t)
	h := v.hour(t)
	c := sessionCipher(t, v)
	c256, err := NewCipher256(v.str(t, "SECRET"))
	if err != nil {
		t.Fatal(err)
	}
	root256, err := NewCipher256("")
	if err != nil {
		t.Fatal(err)
	}
	plain40, plain12 := v.hex(t, "PLAIN40"), v.hex(t, "PLAIN12")
	cases := []struct {
		name  string
		c     *Cipher
		plain []byte
	}{
		{"AES_ROOT_HELLO", RootCipher(), []byte("hello")},
		{"AES_SECRET_HELLO", c, []byte("hello")},
		{"AES_SECRET_PLAIN40", c, plain40},
		{"AES_ROOT_PLAIN12", RootCipher(), plain12},
		{"AES256_ROOT_HELLO", root256, []byte("hello")},
		{"AES256_SECRET_PLAIN40", c256, plain40},
	}
	for _, k := range cases {
		want := v.hex(t, k.name)
		got := k.c.Encrypt(h, k.plain)
		equalHex(t, k.name, got, want)
		if len(got) != k.c.EncryptedLen(len(k.plain)) {
			t.Errorf("%s: EncryptedLen %d, ciphertext %d", k.name, k.c.EncryptedLen(len(k.plain)), len(got))
		}
		back, err := k.c.Decrypt(want, h)
		if err != nil || !bytes.Equal(back, k.plain) {
			t.Errorf("%s: decrypt = %x, %v", k.name, back, err)
		}
		data, hour, err := k.c.Open(want)
		if err != nil || hour != h || !bytes.Equal(data, k.plain) {
			t.Errorf("%s: open = %x %d %v", k.name, data, hour, err)
		}
	}
	// The ±24 h window, both ways (the reference's wf_decrypt at H+30 fails).
	ct := v.hex(t, "AES_SECRET_HELLO")
	for _, d := range []Hour{-24, 0, 24} {
		if _, err := c.Decrypt(ct, h+d); err != nil {
			t.Errorf("now = H%+d: %v", d, err)
		}
	}
	for _, d := range []Hour{-25, 25, 30} {
		if _, err := c.Decrypt(ct, h+d); err != ErrTimeInconsistent {
			t.Errorf("now = H%+d: %v, want ErrTimeInconsistent", d, err)
		}
	}
	// The wrong key: a padding error or garbage, never the plaintext.
	if back, err := RootCipher().Decrypt(ct, h); err == nil && bytes.Equal(back, []byte("hello")) {
		t.Error("root key decrypted the session ciphertext")
	}
}

func TestVectorDESToken(t *testing.T) {
	v := loadVectors(t)
	cases := []struct {
		name, key, user string
		ms              int64
	}{
		{"DES_TOKEN_U1", DefaultTokenKey, "u1", 1700000000000},
		{"DES_TOKEN_USER42", "mykey", "user-0042", 1799999999999},
	}
	for _, k := range cases {
		want := v.str(t, k.name)
		if got := MakeDESToken(k.key, k.ms, k.user); got != want {
			t.Errorf("%s: %s, want %s", k.name, got, want)
		}
		user, ms, err := ParseDESToken(want, k.key)
		if err != nil || user != k.user || ms != k.ms {
			t.Errorf("%s: parse = %q %d %v", k.name, user, ms, err)
		}
		if _, _, err := ParseDESToken(want, "other"); err != ErrTokenKey {
			t.Errorf("%s with another key: %v", k.name, err)
		}
	}
	// Newer servers append "|<4 random chars>": the user id stops before it.
	if user, _, err := ParseDESToken(MakeDESToken("testim", 5, "u7|aB3x"), "testim"); err != nil || user != "u7" {
		t.Errorf("suffixed token: %q %v", user, err)
	}
}

func TestVectorIMToken(t *testing.T) {
	v := loadVectors(t)
	want := IMToken{DESToken: v.str(t, "DES_TOKEN_U1"), Secret: v.str(t, "SECRET"),
		DBSecret: v.str(t, "DB_SECRET"), Hour: v.hour(t)}
	got, err := ParseIMToken(v.str(t, "IM_TOKEN"))
	if err != nil || got != want {
		t.Fatalf("ParseIMToken = %+v, %v\nwant %+v", got, err, want)
	}
	if s := MakeIMToken(want); s != v.str(t, "IM_TOKEN") {
		t.Errorf("MakeIMToken = %s\nwant %s", s, v.str(t, "IM_TOKEN"))
	}
	for _, bad := range []string{"", "!!!", "AAAA", MakeIMToken(IMToken{DESToken: "a|b", Secret: "s", DBSecret: "d", Hour: 1})} {
		if _, err := ParseIMToken(bad); err == nil {
			t.Errorf("ParseIMToken(%q) accepted", bad)
		}
	}
}

func TestVectorConnect(t *testing.T) {
	v := loadVectors(t)
	h, c := v.hour(t), sessionCipher(t, v)
	pwd := ConnectPassword(c, v.str(t, "DES_TOKEN_U1"), h)
	equalHex(t, "password", pwd, v.hex(t, "CONNECT_PASSWORD"))
	frame, err := NewConnect("c1", "u1", pwd, 60).Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	equalHex(t, "CONNECT", frame, v.hex(t, "CONNECT_C1_U1"))

	p, n, err := DecodeFrame(v.hex(t, "CONNECT_C1_U1"))
	if err != nil || n != len(frame) {
		t.Fatalf("decode: n=%d %v", n, err)
	}
	cn := p.(Connect)
	if cn.ClientID != "c1" || cn.Username != "u1" || cn.KeepAlive != 60 || cn.Level != 4 || cn.Flags != 0xC2 {
		t.Errorf("decoded %+v", cn)
	}
	user, err := PasswordUserID(c, cn.Password, h+3, DefaultTokenKey)
	if err != nil || user != "u1" {
		t.Errorf("PasswordUserID = %q, %v", user, err)
	}
	if _, err := PasswordUserID(RootCipher(), cn.Password, h, DefaultTokenKey); err == nil {
		t.Error("password opened with the wrong key")
	}
}

func TestVectorRequestAndResult(t *testing.T) {
	v := loadVectors(t)
	h, c := v.hour(t), sessionCipher(t, v)

	msg := &pb.Message{
		Conversation: &pb.Conversation{Type: proto.Int32(ConvPrivate), Target: proto.String("u2"), Line: proto.Int32(0)},
		FromUser:     proto.String("u1"),
		Content:      &pb.MessageContent{Type: proto.Int32(ContentText), SearchableContent: proto.String("hi"), PersistFlag: proto.Int32(PersistStoreCount)},
	}
	body, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	equalHex(t, "Message", body, v.hex(t, "PB_MESSAGE_HI"))
	pull, err := proto.Marshal(&pb.PullMessageRequest{Id: proto.Int64(588578821752520705), Type: proto.Int32(PullNormal)})
	if err != nil {
		t.Fatal(err)
	}
	equalHex(t, "PullMessageRequest", pull, v.hex(t, "PB_PULL_REQUEST"))

	frame, err := AppendRequest([]byte("x"), TopicSendMessage, 7, c, h, body)
	if err != nil {
		t.Fatal(err)
	}
	equalHex(t, "PUBLISH MS", frame[1:], v.hex(t, "PUBLISH_MS_7"))
	p, _, err := DecodeFrame(frame[1:])
	if err != nil {
		t.Fatal(err)
	}
	pub := p.(Publish)
	plain, err := c.Decrypt(pub.Payload, h)
	if pub.Topic != "MS" || pub.QoS != 1 || pub.PacketID != 7 || err != nil || !bytes.Equal(plain, body) {
		t.Errorf("decoded %+v, %x %v", pub, plain, err)
	}

	uid, ts := v.int(t, "PUBACK_MS_UID"), v.int(t, "PUBACK_MS_TS")
	ack, err := AppendResponse(nil, 7, CodeSuccess, c, h, AppendSendResult(nil, uid, ts))
	if err != nil {
		t.Fatal(err)
	}
	equalHex(t, "PUBACK", ack, v.hex(t, "PUBACK_MS_7"))
	p, _, err = DecodeFrame(v.hex(t, "PUBACK_MS_7"))
	if err != nil {
		t.Fatal(err)
	}
	pa := p.(Puback)
	res, err := pa.Result(c, h+1)
	if err != nil || pa.PacketID != 7 || pa.Code != CodeSuccess || len(pa.Data) != 32 {
		t.Fatalf("PUBACK %+v: %v", pa, err)
	}
	gu, gt, err := ParseSendResult(res)
	if err != nil || gu != uid || gt != ts {
		t.Errorf("send result %d %d %v", gu, gt, err)
	}
}

func TestVectorAdminSign(t *testing.T) {
	v := loadVectors(t)
	if got := AdminSign("76616", DefaultAdminSecret, "1558350862502"); got != v.str(t, "ADMIN_SIGN_76616") {
		t.Errorf("sign %s", got)
	}
	if got := AdminSign("abc", "s3cr3t", "1700000000000"); got != v.str(t, "ADMIN_SIGN_ABC") {
		t.Errorf("sign %s", got)
	}
	// §4's fixed vector.
	if got := AdminSign("76616", "123456", "1558350862502"); got != "b98f9b0717f59febccf1440067a7f50d9b31bdde" {
		t.Errorf("§4 vector: %s", got)
	}
}

// fullMessage is PB_MESSAGE_FULL's message, field for field as gen_vectors.py
// sets it.
func fullMessage() *pb.Message {
	return &pb.Message{
		Conversation: &pb.Conversation{Type: proto.Int32(ConvGroup), Target: proto.String("g1"), Line: proto.Int32(0)},
		FromUser:     proto.String("u1"),
		Content: &pb.MessageContent{
			Type: proto.Int32(1), SearchableContent: proto.String("hello 世界"), PushContent: proto.String("push"),
			Content: proto.String("ct"), Data: []byte{0, 1, 0xff}, MediaType: proto.Int32(0),
			RemoteMediaUrl: proto.String("http://x/y"), PersistFlag: proto.Int32(3), ExpireDuration: proto.Int32(0),
			MentionedType: proto.Int32(2), MentionedTarget: []string{"u2", "u3"}, Extra: proto.String(`{"k":1}`),
			PushData: proto.String("pd"),
		},
		MessageId: proto.Int64(588578821752520705), ServerTimestamp: proto.Int64(1795392252609),
		ToUser: proto.String("u9"), To: []string{"u4", "u5"},
	}
}

// TestVectorProtobuf holds the generated types to bytes python protobuf made
// from the reference .proto: marshal byte-equal, unmarshal to equal values.
func TestVectorProtobuf(t *testing.T) {
	v := loadVectors(t)
	cases := map[string]proto.Message{
		"PB_MESSAGE_FULL": fullMessage(),
		"PB_PULL_RESULT": &pb.PullMessageResult{Message: []*pb.Message{fullMessage()},
			Current: proto.Int64(588578821752520705), Head: proto.Int64(588578821752520706)},
		"PB_CONNECT_ACK": &pb.ConnectAckPayload{MsgHead: proto.Int64(0), FriendHead: proto.Int64(0),
			FriendRqHead: proto.Int64(0), SettingHead: proto.Int64(0), ServerTime: proto.Int64(1795392252609)},
		"PB_NOTIFY": &pb.NotifyMessage{Type: proto.Int32(PullNormal), Head: proto.Int64(588578821752520705)},
		"PB_CREATE_GROUP": &pb.CreateGroupRequest{
			Group: &pb.Group{
				GroupInfo: &pb.GroupInfo{TargetId: proto.String("g1"), Name: proto.String("G1"),
					Owner: proto.String("u1"), Type: proto.Int32(GroupRestricted)},
				Members: []*pb.GroupMember{{MemberId: proto.String("u1"), Type: proto.Int32(MemberOwner)},
					{MemberId: proto.String("u2"), Type: proto.Int32(MemberNormal)}},
			},
			ToLine: []int32{0},
		},
		"PB_HTTP_WRAPPER": &pb.IMHttpWrapper{Token: proto.String(v.str(t, "DES_TOKEN_U1")), ClientId: proto.String("c1"),
			Request: proto.String(TopicRoute), Data: []byte{0x10, 0x07}},
		"PB_IDBUF": &pb.IDBuf{Id: proto.String("chatroom-1")},
	}
	for name, m := range cases {
		want := v.hex(t, name)
		got, err := proto.Marshal(m)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		equalHex(t, name, got, want)
		back := m.ProtoReflect().New().Interface()
		if err := proto.Unmarshal(want, back); err != nil || !proto.Equal(back, m) {
			t.Errorf("%s: unmarshal %v\n got %v\nwant %v", name, err, back, m)
		}
	}
	// proto2 required fields: a Message without from_user does not marshal,
	// and bytes lacking it do not unmarshal, as the server's parser insists.
	bad := fullMessage()
	bad.FromUser = nil
	if _, err := proto.Marshal(bad); err == nil {
		t.Error("marshalled a Message without its required from_user")
	}
	if err := proto.Unmarshal([]byte{0x08, 0x00}, new(pb.NotifyMessage)); err == nil {
		t.Error("unmarshalled a NotifyMessage without head")
	}
}
