package openim

import (
	"bytes"
	"compress/gzip"
	"encoding/gob"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/imbench/imbench/internal/shared"
	"github.com/imbench/imbench/wire/openim/pb"
)

// fuzzVectors reads the shared vectors for seeds: hex ones decoded, the
// JSON envelope as it is.
func fuzzVectors(f *testing.F) map[string][]byte {
	v, err := shared.Vectors(vectorsFile)
	if err != nil {
		f.Fatalf("load vectors: %v", err)
	}
	out := map[string][]byte{}
	for name, s := range v {
		if strings.HasPrefix(name, "json_") {
			out[name] = []byte(s)
			continue
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			f.Fatalf("vector %s: %v", name, err)
		}
		out[name] = b
	}
	return out
}

func fuzzGzip(b []byte) []byte {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(b)
	zw.Close()
	return zb.Bytes()
}

// fuzzResps are response frames in both envelopes: the vector and a few
// made here, among them a kick, an error and a push.
func fuzzResps(f *testing.F, v map[string][]byte) (gobs, jsons [][]byte) {
	gobs = append(gobs, v["gob_resp_server_shape_sendmsg"])
	for _, r := range []Resp{
		{ReqIdentifier: PushMsg, Data: v["pushmessages_one_conv"]},
		{ReqIdentifier: KickOnlineMsg},
		{ReqIdentifier: ReqGetNewestSeq, MsgIncr: "u2_9", OperationID: "op", Data: v["getmaxseqresp"]},
		{ReqIdentifier: ReqPullMsgByRange, MsgIncr: "m", ErrCode: CodeTokenInvalid, ErrMsg: "TokenInvalidError"},
		{ReqIdentifier: -1, ErrCode: -1 << 40},
	} {
		for _, e := range []Envelope{Gob, JSON} {
			b, err := e.EncodeResp(&r)
			if err != nil {
				f.Fatal(err)
			}
			if e == Gob {
				gobs = append(gobs, b)
			} else {
				jsons = append(jsons, b)
			}
		}
	}
	var buf bytes.Buffer
	gob.NewEncoder(&buf).Encode(struct {
		ReqIdentifier uint
		ErrCode       bool
	}{7, true})
	gobs = append(gobs, buf.Bytes(), []byte{0x05, 0x01}, []byte{})
	jsons = append(jsons, []byte(`{"reqIdentifier":2001,"data":"CgI="}`), []byte(`{"errCode":1e3}`), []byte(`null`))
	return gobs, jsons
}

// FuzzDecodeResp decodes any server frame in either envelope, plain or
// gzipped, as the client does: no panic; whatever decodes agrees with
// encoding/gob (when that decodes it too) and re-encodes, as the server
// would, to a frame that decodes to the same envelope.
func FuzzDecodeResp(f *testing.F) {
	v := fuzzVectors(f)
	gobs, jsons := fuzzResps(f, v)
	for _, b := range gobs {
		f.Add(b, uint8(0))
		f.Add(fuzzGzip(b), uint8(1))
	}
	for _, b := range jsons {
		f.Add(b, uint8(2))
		f.Add(fuzzGzip(b), uint8(3))
	}
	f.Fuzz(func(t *testing.T, frame []byte, mode uint8) {
		c := Codec{Envelope: Gob, Gzip: mode&1 != 0}
		if mode&2 != 0 {
			c.Envelope = JSON
		}
		var r Resp
		if err := c.DecodeResp(frame, &r); err != nil {
			return
		}
		raw := frame
		if c.Gzip {
			var buf bytes.Buffer
			if err := gunzipInto(&buf, frame); err != nil {
				t.Fatalf("decoded a frame that does not gunzip: %v", err)
			}
			raw = buf.Bytes()
		}
		if c.Envelope == Gob {
			var ref Resp
			if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&ref); err == nil && !respEqual(ref, r) {
				t.Fatalf("fast path %+v, encoding/gob %+v", r, ref)
			}
		}
		enc, err := c.Envelope.EncodeResp(&r)
		if err != nil {
			t.Fatalf("re-encode %+v: %v", r, err)
		}
		if c.Gzip {
			enc = fuzzGzip(enc)
		}
		var back Resp
		if err := c.DecodeResp(enc, &back); err != nil || !respEqual(back, r) {
			t.Fatalf("round trip of %+v: %+v %v", r, back, err)
		}
	})
}

// FuzzDecodeReq decodes any client frame as the server does (a fresh
// encoding/gob decoder, or encoding/json): no panic; whatever decodes
// encodes, as the client does, to a frame that decodes to the same request,
// and gob's fast encoder writes what encoding/gob reads back.
func FuzzDecodeReq(f *testing.F) {
	v := fuzzVectors(f)
	reqs := []Req{
		{ReqIdentifier: ReqSendMsg, SendID: "u1", OperationID: "op1", MsgIncr: "u1_1", Data: v["msgdata_single_text"]},
		{ReqIdentifier: ReqGetNewestSeq, SendID: "u2", Data: v["getmaxseqreq"]},
		{ReqIdentifier: ReqPullMsgByRange, SendID: "u2", Token: "t", Data: v["pullmessagebyseqsreq"]},
		{ReqIdentifier: LogoutMsg},
	}
	f.Add(v["gob_req_server_shape_sendmsg"], false)
	f.Add(v["gob_req_sdk_shape_sendmsg"], false)
	f.Add(v["json_req_sendmsg"], true)
	for _, r := range reqs {
		g, _ := Gob.AppendReq(nil, &r)
		j, _ := JSON.AppendReq(nil, &r)
		f.Add(g, false)
		f.Add(j, true)
	}
	f.Add([]byte(`{"reqIdentifier":1003,"data":"!!"}`), true)
	f.Add([]byte(`{"reqIdentifier":99999999999}`), true)
	f.Fuzz(func(t *testing.T, frame []byte, isJSON bool) {
		env := Gob
		if isJSON {
			env = JSON
		}
		var r Req
		if err := env.DecodeReq(frame, &r); err != nil {
			return
		}
		if isJSON && !(utf8.ValidString(r.Token) && utf8.ValidString(r.SendID) && utf8.ValidString(r.OperationID) && utf8.ValidString(r.MsgIncr)) {
			t.Fatalf("JSON decoded invalid UTF-8: %+v", r)
		}
		for _, e := range []Envelope{Gob, JSON} {
			enc, err := e.AppendReq(nil, &r)
			if err != nil {
				t.Fatalf("%s: encode %+v: %v", e, r, err)
			}
			var back Req
			if err := e.DecodeReq(enc, &back); err != nil {
				t.Fatalf("%s: decode of re-encoding: %v", e, err)
			}
			if e == Gob || isJSON { // JSON makes text valid UTF-8
				if !reqEqual(back, r) {
					t.Fatalf("%s: round trip\n got %+v\nwant %+v", e, back, r)
				}
			}
		}
	})
}

// FuzzGzip inflates any bytes as a gzipped frame: no panic, an error
// rather than a partial frame; and any bytes deflate and inflate back.
func FuzzGzip(f *testing.F) {
	f.Add([]byte("hello"))
	f.Add(fuzzGzip([]byte("hello")))
	f.Add(fuzzGzip(bytes.Repeat([]byte{0}, 100000)))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		var buf bytes.Buffer
		if err := gunzipInto(&buf, b); err == nil {
			// stdlib agrees the stream is whole
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("klauspost took it, stdlib: %v", err)
			}
			var ref bytes.Buffer
			if _, err := ref.ReadFrom(zr); err != nil || !bytes.Equal(ref.Bytes(), buf.Bytes()) {
				t.Fatalf("stdlib inflates %d bytes (%v), we %d", ref.Len(), err, buf.Len())
			}
		}
		z, err := gzipBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := gunzipInto(&buf, z); err != nil || !bytes.Equal(buf.Bytes(), b) {
			t.Fatalf("round trip of %d bytes: %d, %v", len(b), buf.Len(), err)
		}
	})
}

// fuzzTypes are every message of the protocol's .proto: what either side
// decodes out of an envelope's data.
func fuzzTypes(f *testing.F) []protoreflect.MessageType {
	var out []protoreflect.MessageType
	msgs := pb.File_openim_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(msgs.Get(i).FullName())
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, mt)
	}
	return out
}

// FuzzProtobuf decodes any payload as every message of the protocol's
// .proto: no panic; whatever decodes marshals (deterministically) to what
// decodes back equal, in proto.Size bytes.
func FuzzProtobuf(f *testing.F) {
	v := fuzzVectors(f)
	for _, name := range []string{"msgdata_single_text", "msgdata_group_text", "msgdata_single_text_as_pushed",
		"pushmessages_one_conv", "sendmsgresp", "getmaxseqreq", "getmaxseqresp", "pullmessagebyseqsreq", "pullmessagebyseqsresp"} {
		f.Add(v[name])
	}
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{0x92, 0x01, 0x02, 0xff, 0xfe}) // invalid UTF-8 in a string
	types := fuzzTypes(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, mt := range types {
			m := mt.New().Interface()
			if err := proto.Unmarshal(b, m); err != nil {
				continue
			}
			enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatalf("%T: marshal: %v", m, err)
			}
			if len(enc) != proto.Size(m) {
				t.Fatalf("%T: %d bytes, Size %d", m, len(enc), proto.Size(m))
			}
			back := m.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(enc, back); err != nil || !proto.Equal(back, m) {
				t.Fatalf("%T: round trip: %v", m, err)
			}
		}
	})
}

// FuzzContent reads any message content and login answer: no panic; a text
// that needs no escaping comes back from its own content exactly.
func FuzzContent(f *testing.F) {
	f.Add([]byte(`{"content":"hello"}`), []byte("hello"))
	f.Add([]byte(`{"content":"a\"b"}`), []byte(`a\`))
	f.Add([]byte(`{"errCode":0,"errMsg":"","errDlt":""}`), []byte{})
	f.Add([]byte(`{"errCode":"x"}`), []byte("imb1|r|1|2|3|4||00000000"))
	f.Fuzz(func(t *testing.T, content, text []byte) {
		_ = ContentText(content)
		if a, ok := ParseLoginAnswer(content); !ok && a != (LoginAnswer{}) {
			t.Fatalf("not an answer, yet %+v", a)
		}
		if bytes.IndexByte(text, '"') < 0 && bytes.IndexByte(text, '\\') < 0 {
			if got := ContentText(TextContent(text)); !bytes.Equal(got, text) {
				t.Fatalf("%q came back as %q", text, got)
			}
		}
	})
}

// FuzzConversationID parses one-to-one and group conversation ids. The
// format is ambiguous once ids hold underscores at their edges ("_x_" and
// "_x" make si__x__x_, as do "_x_" and "x_"): any pair's id parses, for
// each side, to a peer that builds the same id back; ids of imbench's form
// (a prefix, then u and a number) give each side the other exactly; any id
// that parses for a user is rebuilt from the parts.
func FuzzConversationID(f *testing.F) {
	f.Add("u1", "u2", "si_u1_u2", "imb_", uint32(1), uint32(2))
	f.Add("a_b", "a", "si_a_a_b", "x_u", uint32(10), uint32(1))
	f.Add("x_1", "x_1_2", "sg_g_1", "", uint32(0), uint32(0))
	f.Add("", "", "si__", "_", uint32(7), uint32(70))
	f.Add("_x_", "_x", "si__x__x_", "_x_", uint32(0), uint32(1))
	f.Fuzz(func(t *testing.T, me, peer, id, prefix string, i, j uint32) {
		cid := SingleConversationID(me, peer)
		for _, side := range [][2]string{{me, peer}, {peer, me}} {
			if got, ok := SinglePeer(cid, side[0]); !ok || SingleConversationID(side[0], got) != cid {
				t.Fatalf("SinglePeer(%q, %q) = %q %v", cid, side[0], got, ok)
			}
		}
		if _, ok := ConversationGroup(cid); ok {
			t.Fatalf("%q parsed as a group's", cid)
		}
		a, b := prefix+"u"+strconv.FormatUint(uint64(i), 10), prefix+"u"+strconv.FormatUint(uint64(j), 10)
		ab := SingleConversationID(a, b)
		if got, ok := SinglePeer(ab, a); !ok || got != b {
			t.Fatalf("SinglePeer(%q, %q) = %q %v, want %q", ab, a, got, ok, b)
		}
		if got, ok := SinglePeer(ab, b); !ok || got != a {
			t.Fatalf("SinglePeer(%q, %q) = %q %v, want %q", ab, b, got, ok, a)
		}
		if p, ok := SinglePeer(id, me); ok && SingleConversationID(me, p) != id {
			t.Fatalf("%q for %q gave %q", id, me, p)
		}
		if g, ok := ConversationGroup(id); ok && GroupConversationID(g) != id {
			t.Fatalf("group %q from %q", g, id)
		}
	})
}
