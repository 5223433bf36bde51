package openim_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/internal/shared"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// fuzzGateway holds one logged-in connection per envelope and compression
// (variant v: user fz<v>, each alone with u2 in a one-to-one conversation
// and in group g<v>, where a message is stored already, so that pulls reach
// stored messages and no push reaches another variant's connection) to a
// reference target; a connection the server ends is dialed again.
type fuzzGateway struct {
	tg    *reftest.Target
	conns [4]*websocket.Conn
}

func fuzzUser(v int) string { return "fz" + strconv.Itoa(v) }

func variant(v int) (wire.Envelope, bool) { return []wire.Envelope{wire.Gob, wire.JSON}[v/2], v%2 == 1 }

func (g *fuzzGateway) conn(tb testing.TB, v int) *websocket.Conn {
	if g.conns[v] != nil {
		return g.conns[v]
	}
	platform := v + 1
	tk, err := g.tg.Core.UserToken(fuzzUser(v), platform)
	if err != nil {
		tb.Fatal(err)
	}
	env, gz := variant(v)
	q := url.Values{"sendID": {fuzzUser(v)}, "token": {tk}, "platformID": {strconv.Itoa(platform)}, "operationID": {"op"},
		"isBackground": {"false"}, "sdkType": {env.SDKType()}}
	if gz {
		q.Set("compression", "gzip")
	}
	c, _, err := websocket.DefaultDialer.Dial(g.tg.WSURL+"/?"+q.Encode(), nil)
	if err != nil {
		tb.Fatalf("login: %v", err)
	}
	g.conns[v] = c
	return c
}

func (g *fuzzGateway) drop(v int) {
	if g.conns[v] != nil {
		g.conns[v].Close()
		g.conns[v] = nil
	}
}

// roundTrip sends one binary frame on variant v's connection and returns
// the first answer that is not a push, or nil when the server ended the
// connection. A connection that served an earlier frame may be ending (a
// logout, or a request the gateway answers and then drops the connection
// over): when it ends without an answer, the frame goes again on a new one.
func (g *fuzzGateway) roundTrip(tb testing.TB, v int, frame []byte) *wire.Resp {
	fresh := g.conns[v] == nil
	if r := g.try(tb, v, frame); r != nil || fresh {
		return r
	}
	return g.try(tb, v, frame)
}

func (g *fuzzGateway) try(tb testing.TB, v int, frame []byte) *wire.Resp {
	c := g.conn(tb, v)
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := c.WriteMessage(websocket.BinaryMessage, frame); err != nil {
		g.drop(v)
		return nil
	}
	env, gz := variant(v)
	codec := wire.Codec{Envelope: env, Gzip: gz}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		mt, b, err := c.ReadMessage()
		if err != nil {
			if websocket.IsUnexpectedCloseError(err) || websocket.IsCloseError(err) {
				g.drop(v)
				return nil
			}
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				tb.Fatalf("no answer and no close within 5 s to %x", frame)
			}
			g.drop(v)
			return nil
		}
		if mt != websocket.BinaryMessage {
			tb.Fatalf("a %d frame in answer: %q", mt, b)
		}
		var r wire.Resp
		if err := codec.DecodeResp(b, &r); err != nil {
			tb.Fatalf("the server's answer does not decode: %v", err)
		}
		if r.ReqIdentifier != wire.PushMsg || r.MsgIncr != "" || r.ErrCode != 0 { // not a push
			return &r
		}
	}
}

func startFuzzGateway(f *testing.F) *fuzzGateway {
	tg := reftest.Start(f, core.Faults{})
	if err := tg.Core.Register([]string{fuzzUser(0), fuzzUser(1), fuzzUser(2), fuzzUser(3), "u2"}); err != nil {
		f.Fatal(err)
	}
	g := &fuzzGateway{tg: tg}
	for v := range 4 {
		if _, err := tg.Core.CreateGroup("g"+strconv.Itoa(v), fuzzUser(v), []string{"u2"}); err != nil {
			f.Fatal(err)
		}
		env, _ := variant(v)
		for _, md := range []*pb.MsgData{fuzzMsg(v, wire.SessionSingle), fuzzMsg(v, wire.SessionGroup)} {
			data, _ := proto.Marshal(md)
			b, _ := env.AppendReq(nil, &wire.Req{ReqIdentifier: wire.ReqSendMsg, SendID: fuzzUser(v), OperationID: "op", MsgIncr: "m0", Data: data})
			if _, gz := variant(v); gz {
				b = gzipped(b)
			}
			if r := g.roundTrip(f, v, b); r == nil || r.ErrCode != 0 {
				f.Fatalf("setup send: %+v", r)
			}
		}
	}
	return g
}

func gzipped(b []byte) []byte {
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(b)
	zw.Close()
	return zb.Bytes()
}

func fuzzMsg(v int, session int32) *pb.MsgData {
	md := &pb.MsgData{SendID: fuzzUser(v), ClientMsgID: "c1", SenderPlatformID: int32(v + 1), SessionType: session,
		MsgFrom: wire.MsgFromUser, ContentType: wire.ContentTypeText, Content: wire.TextContent([]byte("hi")), CreateTime: 1700000000000}
	if session == wire.SessionGroup {
		md.GroupID = "g" + strconv.Itoa(v)
	} else {
		md.RecvID = "u2"
	}
	return md
}

// FuzzGatewayRequest sends the gateway any request in each envelope and
// compression (mode's low bits), as the client's envelope from the
// connection's user (bit 3: from sendID) or, with bit 2, as any bytes: no panic and no hang; a frame whose envelope decodes is
// answered with its reqIdentifier, msgIncr and operationID echoed in a
// frame the client decodes (or, for a request the real gateway drops the
// connection over, the connection ends after that answer); a frame that
// does not decode ends the connection without one.
func FuzzGatewayRequest(f *testing.F) {
	v, err := shared.Vectors("openim-protocol-v0.0.73-alpha.12.txt")
	if err != nil {
		f.Fatal(err)
	}
	hexv := func(name string) []byte {
		var b []byte
		fmt.Sscanf(v[name], "%x", &b)
		return b
	}
	pull := func(v int, conv string, begin, end, num int64) []byte {
		b, _ := proto.Marshal(&pb.PullMessageBySeqsReq{UserID: fuzzUser(v), Order: pb.PullOrder_PullOrderAsc,
			SeqRanges: []*pb.SeqRange{{ConversationID: conv, Begin: begin, End: end, Num: num}}})
		return b
	}
	for v := range 4 {
		m := uint8(v)
		single, _ := proto.Marshal(fuzzMsg(v, wire.SessionSingle))
		group, _ := proto.Marshal(fuzzMsg(v, wire.SessionGroup))
		maxSeq, _ := proto.Marshal(&pb.GetMaxSeqReq{UserID: fuzzUser(v)})
		si, sg := wire.SingleConversationID(fuzzUser(v), "u2"), wire.GroupConversationID("g"+strconv.Itoa(v))
		for _, s := range []struct {
			id   int32
			data []byte
		}{
			{wire.ReqSendMsg, single}, {wire.ReqSendMsg, group}, {wire.ReqSendMsg, hexv("msgdata_single_text")},
			{wire.ReqGetNewestSeq, maxSeq}, {wire.ReqGetNewestSeq, hexv("getmaxseqreq")},
			{wire.ReqPullMsgByRange, pull(v, si, 1, 10, 10)}, {wire.ReqPullMsgByRange, pull(v, sg, 0, 0, 0)},
			{wire.ReqPullMsgByRange, pull(v, si, 10, math.MinInt64+5, 1)},
			{wire.ReqPullMsgByRange, pull(v, sg, math.MinInt64, math.MaxInt64, math.MaxInt64)},
			{wire.ReqPullMsgByRange, hexv("pullmessagebyseqsreq")},
			{1004, nil}, {1005, pull(v, si, 1, 1, 1)}, {1006, maxSeq}, {1007, maxSeq}, {2004, []byte{0x08, 0x01}},
			{2005, []byte{0x08, 0x01, 0x12, 0x02, 'u', '2'}}, {wire.LogoutMsg, nil}, {wire.PushMsg, nil}, {-1, nil},
		} {
			f.Add(s.id, "", s.data, m)
		}
		f.Add(wire.ReqSendMsg, "u2", single, m|8) // another user's sendID
	}
	f.Add(int32(0), "", hexv("gob_req_server_shape_sendmsg"), uint8(4))
	f.Add(int32(0), "", []byte(v["json_req_sendmsg"]), uint8(6))
	f.Add(int32(0), "", []byte{}, uint8(5))
	f.Add(int32(0), "", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 0x03, 0x00}, uint8(5))
	g := startFuzzGateway(f)
	f.Fuzz(func(t *testing.T, id int32, sendID string, data []byte, mode uint8) {
		vi := int(mode % 4)
		env, gz := variant(vi)
		frame := data
		if mode&4 == 0 {
			if mode&8 == 0 {
				sendID = fuzzUser(vi)
			}
			b, err := env.AppendReq(nil, &wire.Req{ReqIdentifier: id, SendID: sendID, OperationID: "op", MsgIncr: "m" + strconv.Itoa(int(mode)), Data: data})
			if err != nil {
				return
			}
			frame = b
			if gz {
				frame = gzipped(b)
			}
		}
		// What the server will read, decoded here as the real gateway does.
		raw, decoded := frame, true
		var req wire.Req
		if gz {
			zr, err := gzip.NewReader(bytes.NewReader(frame))
			if err == nil {
				raw, err = io.ReadAll(zr)
			}
			decoded = err == nil
		}
		decoded = decoded && env.DecodeReq(raw, &req) == nil
		r := g.roundTrip(t, vi, frame)
		switch {
		case !decoded && r != nil:
			t.Fatalf("an undecodable frame was answered: %+v", r)
		case decoded && r == nil:
			t.Fatalf("request %+v got no answer", req)
		case r != nil && (r.ReqIdentifier != req.ReqIdentifier || r.MsgIncr != req.MsgIncr || r.OperationID != req.OperationID):
			t.Fatalf("request %d %q %q answered as %d %q %q", req.ReqIdentifier, req.MsgIncr, req.OperationID,
				r.ReqIdentifier, r.MsgIncr, r.OperationID)
		}
	})
}
