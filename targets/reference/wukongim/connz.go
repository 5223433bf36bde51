package wukongim

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// connStats is what /connz reports of one connection.
type connStats struct {
	since                                    time.Time
	device, level                            uint8
	deviceID                                 string
	inMsgs, outMsgs, inMsgBytes, outMsgBytes atomic.Int64 // SENDs read, RECVs written, their payloads
	inPackets, outPackets, inBytes, outBytes atomic.Int64
	lastActivity                             atomic.Int64 // unix ns of the last frame read
}

// track lists a logged-in connection for /connz and /user/onlinestatus.
func (f *FrontEnd) track(c *conn) { f.live.Store(c, struct{}{}) }

func (f *FrontEnd) untrack(c *conn) { f.live.Delete(c) }

// liveConns lists this process's logged-in connections, oldest first.
func (f *FrontEnd) liveConns() []*conn {
	var out []*conn
	f.live.Range(func(k, _ any) bool { out = append(out, k.(*conn)); return true })
	slices.SortFunc(out, func(a, b *conn) int { return a.stats.since.Compare(b.stats.since) })
	return out
}

// onlineStatus is POST /user/onlinestatus: a JSON array of uids in, one
// entry per online connection of theirs out; none answers {"status":200}.
func (a *api) onlineStatus(_ *http.Request, body []byte) (any, error) {
	var uids []string
	if err := decode(body, &uids); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, u := range uids {
		want[u] = true
	}
	var out []wire.OnlineStatus
	for _, c := range a.f.liveConns() {
		if want[c.uid] {
			out = append(out, wire.OnlineStatus{UID: c.uid, DeviceFlag: c.stats.device, Online: 1})
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// connz is GET /connz: this process's connections, sorted (sort=id, the
// default, idDesc, inMsg, outMsg, uptime, idle and their …Desc), offset
// and limit (20), uid a substring of the uids to list. pending_bytes is 0,
// as the real server's (its computation is commented out).
func (a *api) connz(r *http.Request, _ []byte) (any, error) {
	q := r.URL.Query()
	offset, _ := strconv.Atoi(q.Get("offset"))
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		limit = 20
	}
	now := time.Now()
	var all []wire.ConnInfo
	for _, c := range a.f.liveConns() {
		if sub := q.Get("uid"); sub != "" && !strings.Contains(c.uid, sub) {
			continue
		}
		all = append(all, c.info(a.f, now))
	}
	sortConns(all, q.Get("sort"))
	out := wire.Connz{Connections: []wire.ConnInfo{}, Now: now, Total: len(all), Offset: offset, Limit: limit}
	if offset >= 0 && offset < len(all) {
		out.Connections = all[offset:min(offset+limit, len(all))]
	}
	return out, nil
}

func (c *conn) info(f *FrontEnd, now time.Time) wire.ConnInfo {
	s := &c.stats
	ip, port := "", 0
	if host, p, err := net.SplitHostPort(c.t.remote()); err == nil {
		ip, port = host, atoi(p)
	}
	last := time.Unix(0, s.lastActivity.Load())
	device := map[uint8]string{wire.DeviceApp: "App", wire.DeviceWeb: "Web", wire.DevicePC: "PC"}[s.device]
	if device == "" {
		device = "Unknown"
	}
	if s.level == wire.DeviceLevelMaster {
		device += "(主)"
	} else {
		device += "(从)"
	}
	return wire.ConnInfo{ID: int64(c.id >> 1), UID: c.uid, IP: ip, Port: port, LastActivity: last.Format(time.RFC3339Nano),
		Uptime: uptime(now.Sub(s.since)), Idle: uptime(now.Sub(last)),
		InMsgs: s.inMsgs.Load(), OutMsgs: s.outMsgs.Load(), InMsgBytes: s.inMsgBytes.Load(), OutMsgBytes: s.outMsgBytes.Load(),
		InPackets: s.inPackets.Load(), OutPackets: s.outPackets.Load(), InPacketBytes: s.inBytes.Load(), OutPacketBytes: s.outBytes.Load(),
		Device: device, DeviceID: s.deviceID, Version: c.version, LeaderID: f.NodeID, NodeID: f.NodeID}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// sortConns orders connections as /connz's sort= asks (by id when unknown).
func sortConns(cs []wire.ConnInfo, by string) {
	desc := strings.HasSuffix(by, "Desc")
	key := func(c wire.ConnInfo) int64 {
		switch strings.TrimSuffix(by, "Desc") {
		case "inMsg":
			return c.InMsgs
		case "outMsg":
			return c.OutMsgs
		case "inMsgBytes":
			return c.InMsgBytes
		case "outMsgBytes":
			return c.OutMsgBytes
		case "inPacket":
			return c.InPackets
		case "outPacket":
			return c.OutPackets
		}
		return c.ID
	}
	slices.SortStableFunc(cs, func(a, b wire.ConnInfo) int {
		ka, kb := key(a), key(b)
		if desc {
			ka, kb = kb, ka
		}
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
}

// conversationSync is POST /conversation/sync: the user's conversations
// that hold messages, each with its newest msg_count of them (none listed
// when msg_count is 0, as on the real server), the first of each recents
// with no header flags as the real server's store gives it. The reference
// keeps no read position nor conversation versions: every message not the
// user's own counts as unread, readed_to_msg_seq is 0, version is the last
// message's time, and version, last_msg_seqs, only_unread and paging are
// not applied.
func (a *api) conversationSync(_ *http.Request, body []byte) (any, error) {
	var req wire.ConversationSyncReq
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.UID) == "" {
		return nil, refuse("uid不能为空！")
	}
	out := []wire.SyncConversation{}
	if req.MsgCount <= 0 {
		return out, nil
	}
	for key, last := range a.c.MaxSeqs(req.UID) {
		if last <= 0 || key.Kind == core.Room || slices.Contains(req.ExcludeChannelTypes, channelTypeOf(key)) {
			continue
		}
		page, err := a.c.Pull(req.UID, key, max(last-int64(req.MsgCount)+1, 1), last, int64(req.MsgCount))
		if err != nil || len(page.Msgs) == 0 {
			continue
		}
		ch, typ := channelOf(key, req.UID)
		sc := wire.SyncConversation{ChannelID: ch, ChannelType: typ, LastMsgSeq: uint64(last), Recents: []wire.MessageResp{}}
		for _, m := range page.Msgs {
			if r, ok := messageResp(m); ok {
				sc.Recents = append(sc.Recents, r)
			}
			if m.Sender != req.UID {
				sc.Unread++
			}
		}
		newest := page.Msgs[len(page.Msgs)-1]
		sc.Timestamp, sc.Version, sc.LastClientMsgNo = newest.Time/1000, newest.Time, newest.ClientID
		if len(sc.Recents) > 0 {
			sc.Recents[0].Header = wire.MessageHeader{}
		}
		out = append(out, sc)
	}
	slices.SortFunc(out, func(x, y wire.SyncConversation) int { return int(y.Version - x.Version) })
	return out, nil
}

// channelTypeOf is the channel type a conversation key is served as.
func channelTypeOf(k core.ConvKey) uint8 {
	_, typ := channelOf(k, k.ID)
	return typ
}
