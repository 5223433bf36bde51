package openim

import (
	"bytes"
	"compress/gzip"
	"encoding/gob"
	"encoding/hex"

	"io"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/internal/shared"
	"github.com/imbench/imbench/wire/openim/pb"
)

const vectorsFile = "openim-protocol-v0.0.73-alpha.12.txt"

func loadVectors(t *testing.T) map[string]string {
	t.Helper()
	v, err := shared.Vectors(vectorsFile)
	if err != nil {
		t.Fatalf("load vectors: %v", err)
	}
	return v
}

func vecBytes(t *testing.T, v map[string]string, name string) []byte {
	t.Helper()
	s, ok := v[name]
	if !ok {
		t.Fatalf("vector %s missing", name)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("vector %s: %v", name, err)
	}
	return b
}

// The field values the vectors file header documents.
func singleText() *pb.MsgData {
	return &pb.MsgData{SendID: "u1", RecvID: "u2", ClientMsgID: "c1", SenderPlatformID: 3, SessionType: 1,
		MsgFrom: 100, ContentType: 101, Content: []byte(`{"content":"hello"}`), CreateTime: 1700000000000}
}

func singleTextPushed() *pb.MsgData {
	m := singleText()
	m.ServerMsgID, m.Seq, m.SendTime, m.Status = "s1", 7, 1700000000123, 2
	return m
}

func TestProtobufMatchesVectors(t *testing.T) {
	v := loadVectors(t)
	cases := map[string]proto.Message{
		"msgdata_single_text": singleText(),
		"msgdata_group_text": &pb.MsgData{SendID: "u1", GroupID: "g1", ClientMsgID: "c2", SenderPlatformID: 3,
			SessionType: 3, MsgFrom: 100, ContentType: 101, Content: []byte(`{"content":"hi"}`), CreateTime: 1700000000001},
		"msgdata_single_text_as_pushed": singleTextPushed(),
		"pushmessages_one_conv": &pb.PushMessages{Msgs: map[string]*pb.PullMsgs{
			"si_u1_u2": {Msgs: []*pb.MsgData{singleTextPushed()}}}},
		"sendmsgresp":  &pb.SendMsgResp{ServerMsgID: "s1", ClientMsgID: "c1", SendTime: 1700000000123},
		"getmaxseqreq": &pb.GetMaxSeqReq{UserID: "u2"},
		"getmaxseqresp": &pb.GetMaxSeqResp{MaxSeqs: map[string]int64{"si_u1_u2": 7},
			MinSeqs: map[string]int64{"si_u1_u2": 1}},
		"pullmessagebyseqsreq": &pb.PullMessageBySeqsReq{UserID: "u2", Order: pb.PullOrder_PullOrderAsc,
			SeqRanges: []*pb.SeqRange{{ConversationID: "si_u1_u2", Begin: 1, End: 7, Num: 7}}},
		"pullmessagebyseqsresp": &pb.PullMessageBySeqsResp{Msgs: map[string]*pb.PullMsgs{
			"si_u1_u2": {Msgs: []*pb.MsgData{singleTextPushed()}, IsEnd: true, EndSeq: 7}}},
	}
	for name, msg := range cases {
		t.Run(name, func(t *testing.T) {
			want := vecBytes(t, v, name)
			got, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("marshal differs\n got %x\nwant %x", got, want)
			}
			back := msg.ProtoReflect().New().Interface()
			if err := proto.Unmarshal(want, back); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(back, msg) {
				t.Fatalf("unmarshal of vector differs: %v", back)
			}
		})
	}
}

func wantSendReq(t *testing.T, v map[string]string) Req {
	return Req{ReqIdentifier: ReqSendMsg, SendID: "u1", OperationID: "op1", MsgIncr: "u1_1",
		Data: vecBytes(t, v, "msgdata_single_text")}
}

func reqEqual(a, b Req) bool {
	return a.ReqIdentifier == b.ReqIdentifier && a.Token == b.Token && a.SendID == b.SendID &&
		a.OperationID == b.OperationID && a.MsgIncr == b.MsgIncr && bytes.Equal(a.Data, b.Data)
}

func respEqual(a, b Resp) bool {
	return a.ReqIdentifier == b.ReqIdentifier && a.MsgIncr == b.MsgIncr && a.OperationID == b.OperationID &&
		a.ErrCode == b.ErrCode && a.ErrMsg == b.ErrMsg && bytes.Equal(a.Data, b.Data)
}

func TestGobRequestVectorsDecode(t *testing.T) {
	v := loadVectors(t)
	want := wantSendReq(t, v)
	for _, name := range []string{"gob_req_server_shape_sendmsg", "gob_req_sdk_shape_sendmsg"} {
		var got Req
		if err := Gob.DecodeReq(vecBytes(t, v, name), &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reqEqual(got, want) {
			t.Fatalf("%s decoded to %+v, want %+v", name, got, want)
		}
	}
}

func TestGobResponseVectorDecodesOnFastPath(t *testing.T) {
	v := loadVectors(t)
	frame := vecBytes(t, v, "gob_resp_server_shape_sendmsg")
	want := Resp{ReqIdentifier: ReqSendMsg, MsgIncr: "u1_1", OperationID: "op1", Data: vecBytes(t, v, "sendmsgresp")}
	for i := 0; i < 2; i++ { // second pass uses the cached definition
		var got Resp
		if err := fastDecodeResp(frame, &got); err != nil {
			t.Fatalf("fast path refused the server's frame: %v", err)
		}
		if !respEqual(got, want) {
			t.Fatalf("decoded %+v, want %+v", got, want)
		}
	}
	var sr pb.SendMsgResp
	if err := proto.Unmarshal(want.Data, &sr); err != nil || sr.ServerMsgID != "s1" || sr.ClientMsgID != "c1" {
		t.Fatalf("SendMsgResp inside the envelope: %v %v", &sr, err)
	}
}

// The gateway's and the Go SDK's declarations of the envelope. gob matches
// fields by name, so our frames must decode into both.
type serverShapeReq struct {
	ReqIdentifier int32
	Token         string
	SendID        string
	OperationID   string
	MsgIncr       string
	Data          []byte
}

type sdkShapeReq struct {
	ReqIdentifier int
	Token         string
	SendID        string
	OperationID   string
	MsgIncr       string
	Data          []byte
}

func TestOurGobFramesDecodeAsServerAndSDK(t *testing.T) {
	v := loadVectors(t)
	reqs := []Req{wantSendReq(t, v), {}, {ReqIdentifier: -5, Token: "t"},
		{ReqIdentifier: ReqGetNewestSeq, SendID: "user-with-a-long-identifier-of-more-than-127-bytes-" +
			string(bytes.Repeat([]byte("x"), 200)), Data: bytes.Repeat([]byte{0xff}, 70000)}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		reqs = append(reqs, randomReq(rng))
	}
	for _, r := range reqs {
		frame, err := Gob.AppendReq(nil, &r)
		if err != nil {
			t.Fatal(err)
		}
		var s serverShapeReq
		if err := gob.NewDecoder(bytes.NewReader(frame)).Decode(&s); err != nil {
			t.Fatalf("server shape: %v", err)
		}
		if !reqEqual(Req(s), r) {
			t.Fatalf("server decoded %+v, want %+v", s, r)
		}
		var k sdkShapeReq
		if err := gob.NewDecoder(bytes.NewReader(frame)).Decode(&k); err != nil {
			t.Fatalf("sdk shape: %v", err)
		}
		if int32(k.ReqIdentifier) != r.ReqIdentifier || k.SendID != r.SendID || !bytes.Equal(k.Data, r.Data) {
			t.Fatalf("sdk decoded %+v, want %+v", k, r)
		}
	}
}

// serverResp is declared as the gateway declares Resp; its frames must take
// the fast path and agree with encoding/gob.
type serverResp struct {
	ReqIdentifier int32
	MsgIncr       string
	OperationID   string
	ErrCode       int
	ErrMsg        string
	Data          []byte
}

func TestFastGobAgreesWithEncodingGob(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		want := Resp{ReqIdentifier: int32(rng.Uint32()), MsgIncr: randString(rng), OperationID: randString(rng),
			ErrCode: int(rng.Int64()) >> rng.IntN(64), ErrMsg: randString(rng), Data: randBytes(rng)}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(serverResp(want)); err != nil {
			t.Fatal(err)
		}
		var got Resp
		if err := fastDecodeResp(buf.Bytes(), &got); err != nil {
			t.Fatalf("fast path: %v", err)
		}
		if !respEqual(got, want) {
			t.Fatalf("fast %+v\nwant %+v", got, want)
		}
	}
}

func TestGobFallbackAndErrors(t *testing.T) {
	// A differently shaped stream (extra nested field) is outside the fast
	// path; encoding/gob still decodes it.
	type nested struct{ A int }
	type odd struct {
		ReqIdentifier int32
		MsgIncr       string
		Extra         nested
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(odd{ReqIdentifier: 2001, MsgIncr: "m", Extra: nested{1}}); err != nil {
		t.Fatal(err)
	}
	var r Resp
	if err := fastDecodeResp(buf.Bytes(), &r); err == nil {
		t.Fatal("fast path accepted a nested type")
	}
	if err := Gob.DecodeResp(buf.Bytes(), &r); err != nil || r.ReqIdentifier != 2001 || r.MsgIncr != "m" {
		t.Fatalf("fallback: %+v %v", r, err)
	}
	if err := Gob.DecodeResp([]byte{0x05, 0x01}, &r); err == nil {
		t.Fatal("garbage decoded without error")
	}
}

func TestJSONEnvelopeMatchesVector(t *testing.T) {
	v := loadVectors(t)
	want := wantSendReq(t, v)
	var got Req
	if err := JSON.DecodeReq([]byte(v["json_req_sendmsg"]), &got); err != nil {
		t.Fatal(err)
	}
	if !reqEqual(got, want) {
		t.Fatalf("decoded %+v, want %+v", got, want)
	}
	enc, err := JSON.AppendReq(nil, &want)
	if err != nil {
		t.Fatal(err)
	}
	if string(enc) != v["json_req_sendmsg"] {
		t.Fatalf("encoded %s\nwant    %s", enc, v["json_req_sendmsg"])
	}
	var resp Resp
	if err := JSON.DecodeResp([]byte(`{"reqIdentifier":2001,"msgIncr":"","operationID":"o","errCode":0,"errMsg":"","data":"CgI="}`), &resp); err != nil ||
		resp.ReqIdentifier != PushMsg || !bytes.Equal(resp.Data, []byte{0x0a, 0x02}) {
		t.Fatalf("json resp: %+v %v", resp, err)
	}
}

func TestGzipFramesInteroperateWithStdlib(t *testing.T) {
	v := loadVectors(t)
	req := wantSendReq(t, v)
	for _, env := range []Envelope{Gob, JSON} {
		c := Codec{Envelope: env, Gzip: true}
		frame, err := c.EncodeReq(&req)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(frame))
		if err != nil {
			t.Fatalf("%s: stdlib gzip refused our frame: %v", env, err)
		}
		raw, _ := io.ReadAll(zr)
		var got Req
		if err := env.DecodeReq(raw, &got); err != nil || !reqEqual(got, req) {
			t.Fatalf("%s: %+v %v", env, got, err)
		}
		// and the server's stdlib-gzipped response decodes on our side
		resp := Resp{ReqIdentifier: ReqSendMsg, MsgIncr: "u1_1", Data: vecBytes(t, v, "sendmsgresp")}
		enc, err := env.EncodeResp(&resp)
		if err != nil {
			t.Fatal(err)
		}
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		zw.Write(enc)
		zw.Close()
		var back Resp
		if err := c.DecodeResp(zb.Bytes(), &back); err != nil || !respEqual(back, resp) {
			t.Fatalf("%s: resp %+v %v", env, back, err)
		}
	}
}

func randString(rng *rand.Rand) string { return string(randBytes(rng)) }

func randBytes(rng *rand.Rand) []byte {
	n := []int{0, 1, 5, 127, 128, 300, 70000}[rng.IntN(7)]
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	if n == 0 {
		return nil
	}
	return b
}

func randomReq(rng *rand.Rand) Req {
	return Req{ReqIdentifier: int32(rng.Uint32()), Token: randString(rng), SendID: randString(rng),
		OperationID: randString(rng), MsgIncr: randString(rng), Data: randBytes(rng)}
}
