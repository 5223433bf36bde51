package wukongim

import (
	"crypto/rand"
	"encoding/hex"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// maxSyncLimit is the real server's cap on a messagesync page.
const maxSyncLimit = 10000

// messageSync is the offline pull of one channel by seq, with the real
// server's semantics (internal/api/channel.go syncMessages and its store):
//
//   - start = end = 0: the newest limit messages;
//   - pull_mode 1 (up): seqs in [start, end), end 0 meaning no end, the
//     oldest limit of them;
//   - pull_mode 0 (down): seqs in (end, start], the newest limit of them; an
//     end above start is refused;
//   - more is 1 unless fewer than limit came back, or the page reached end.
//
// A person channel is named by the peer's uid. A channel the user has no
// messages in (or is not in) answers the empty page, as one never written
// to does on the real server. Pulls are counted by the core
// (imbench_target_messages_pulled_total).
//
// A live channel (type 9, a chatroom) always answers the empty page, more
// 0, its start and end echoed: the core keeps no chatroom history. The real
// v2 server stores live channels' messages and would page them like a
// group's; the reference does not, so that a long chatroom run holds no
// memory per message, and a load client never pulls a chatroom (what a
// member misses there is a rate, not a gap to fill).
func (a *api) messageSync(r *http.Request, body []byte) (any, error) {
	var req wire.ChannelMessageSyncReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(req.ChannelID) == "":
		return nil, refuse("channel_id is empty")
	case strings.TrimSpace(req.LoginUID) == "":
		return nil, refuse("login_uid is empty")
	}
	empty := wire.ChannelMessageSyncResp{Messages: []wire.MessageResp{}}
	key, ok := convOf(req.LoginUID, req.ChannelID, req.ChannelType)
	if !ok {
		return empty, nil
	}
	if key.Kind == core.Room {
		return wire.ChannelMessageSyncResp{StartMessageSeq: req.StartMessageSeq, EndMessageSeq: req.EndMessageSeq,
			Messages: []wire.MessageResp{}}, nil
	}
	limit := min(req.Limit, maxSyncLimit)
	start, end := clampSeq(req.StartMessageSeq), clampSeq(req.EndMessageSeq)
	var begin, last int64
	switch {
	case start == 0 && end == 0:
		begin, last = 1, math.MaxInt64
	case req.PullMode == wire.PullUp:
		begin = max(start, 1)
		last = begin + int64(max(limit, 1)) - 1
		if end != 0 {
			last = min(last, end-1)
		}
	default:
		if end > start {
			return nil, refuse("end_message_seq %d is above start_message_seq %d", end, start)
		}
		begin, last = max(start-int64(limit)+1, end+1, 1), start
	}
	resp := wire.ChannelMessageSyncResp{StartMessageSeq: req.StartMessageSeq, EndMessageSeq: req.EndMessageSeq,
		Messages: []wire.MessageResp{}}
	if limit > 0 {
		page, err := a.c.Pull(req.LoginUID, key, begin, last, int64(limit))
		if err != nil {
			return empty, nil
		}
		for _, m := range page.Msgs {
			if r, ok := messageResp(m); ok {
				resp.Messages = append(resp.Messages, r)
			}
		}
	}
	if len(resp.Messages) > 0 {
		// As the real server (v2.1.2 and v2.2.5) answers: its store's
		// iterator steps over the first message's header column, so the
		// first message of every page comes back with no header flags,
		// red_dot 0 whatever was sent (pkg/wkdb message.go
		// iteratorChannelMessagesDirection).
		resp.Messages[0].Header = wire.MessageHeader{}
	}
	more := len(resp.Messages) >= limit
	if n := len(resp.Messages); n > 0 && req.EndMessageSeq != 0 {
		edge := resp.Messages[n-1].MessageSeq
		if req.PullMode == wire.PullDown {
			edge = resp.Messages[0].MessageSeq
		}
		more = more && edge != req.EndMessageSeq
	}
	if more {
		resp.More = 1
	}
	if a.c.StallPull(len(resp.Messages)) {
		return nil, stall(r)
	}
	return resp, nil
}

func clampSeq(s uint64) int64 { return int64(min(s, math.MaxInt64/2)) }

// messageResp is a stored message as the API gives it back; a person
// channel is named by the party other than the sender, as the real
// server's MessageResp does.
func messageResp(m *core.Message) (wire.MessageResp, bool) {
	s, err := decodeStored(m.Payload)
	if err != nil {
		return wire.MessageResp{}, false
	}
	ch, typ := channelOf(m.Conv, m.Sender)
	return wire.MessageResp{Header: headerOf(s.Flags), Setting: s.Setting, MessageID: s.MessageID,
		MessageIDStr: strconv.FormatInt(s.MessageID, 10), ClientMsgNo: m.ClientID, MessageSeq: uint64(m.Seq),
		FromUID: m.Sender, ChannelID: ch, ChannelType: typ, Topic: s.Topic, Expire: s.Expire,
		Timestamp: int32(m.Time / 1000), Payload: s.Plain}, true
}

// maxSeq answers GET /channel/max_message_seq?channel_id=&channel_type=: a
// person channel is named by its internal id, the two uids joined by "@". A
// live channel answers the last seq its messages were given, though none is
// kept.
func (a *api) maxSeq(r *http.Request, _ []byte) (any, error) {
	q := r.URL.Query()
	id := q.Get("channel_id")
	if id == "" {
		return nil, refuse("channel_id is empty")
	}
	typ, _ := strconv.ParseUint(q.Get("channel_type"), 10, 8)
	var seq int64
	switch uint8(typ) {
	case wire.ChannelGroup:
		seq = a.c.LastSeq(core.GroupKey(id))
	case wire.ChannelLive:
		seq = a.c.LastSeq(core.RoomKey(id))
	case wire.ChannelPerson:
		if u, peer, ok := strings.Cut(id, "@"); ok {
			seq = a.c.LastSeq(core.DirectKey(u, peer))
		}
	}
	return wire.ChannelMaxSeqResp{MessageSeq: uint64(seq)}, nil
}

// messageSend is the admin send: a message from_uid sends to a channel,
// pushed to every member's connections (the sender's included).
func (a *api) messageSend(_ *http.Request, body []byte) (any, error) {
	var req wire.MessageSendReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	switch {
	case len(req.Payload) == 0:
		return nil, refuse("payload is empty")
	case len(req.Subscribers) > 0:
		return nil, refuse("sending to a subscriber list is not supported by the reference target")
	case strings.TrimSpace(req.ChannelID) == "":
		return nil, refuse("channel_id is empty")
	case strings.TrimSpace(req.FromUID) == "":
		return nil, refuse("from_uid is empty: the reference target has no system sender")
	}
	key, ok := convOf(req.FromUID, req.ChannelID, req.ChannelType)
	if !ok {
		return nil, refuse("channel %q of type %d: the reference target keeps person (1), group (2) and live (9) channels", req.ChannelID, req.ChannelType)
	}
	if req.ClientMsgNo == "" {
		var b [16]byte
		rand.Read(b[:])
		req.ClientMsgNo = hex.EncodeToString(b[:])
	}
	id := a.f.ids.next()
	st := stored{Flags: flagsOf(req.Header), Expire: req.Expire, MessageID: id, Plain: req.Payload}
	if _, err := a.c.Send(&core.Message{Conv: key, Sender: req.FromUID, ClientID: req.ClientMsgNo, Payload: st.encode()}); err != nil {
		return nil, err
	}
	return wire.DataResult[wire.MessageSendResult]{Data: wire.MessageSendResult{MessageID: id, ClientMsgNo: req.ClientMsgNo},
		Status: http.StatusOK}, nil
}
