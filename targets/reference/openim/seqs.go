package openim

import (
	"slices"
	"strings"
	"sync"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
	"github.com/imbench/imbench/wire/openim/pb"
)

// The seq and pull answers (1001, 1002, 1005, 1006, 1007), each as the msg
// service of open-im-server v3.8 computes it (internal/rpc/msg sync_msg.go,
// as_read.go), over a core.Backend so the gateway and the REST twins share
// them.

// readSeqs is each user's has-read seq per conversation. Nothing here marks
// messages read, so it moves only as OpenIM's msgtransfer moves it for a
// sender: to the seq of the sender's own latest message.
type readSeqs struct {
	mu sync.Mutex
	m  map[string]map[string]int64 // user → conversation id → seq
}

func newReadSeqs() *readSeqs { return &readSeqs{m: map[string]map[string]int64{}} }

func (r *readSeqs) sent(user, conv string, seq int64) {
	if r == nil || seq <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	byConv := r.m[user]
	if byConv == nil {
		byConv = map[string]int64{}
		r.m[user] = byConv
	}
	byConv[conv] = max(byConv[conv], seq)
}

func (r *readSeqs) get(user, conv string) int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[user][conv]
}

// isNotification reports an n_ conversation id (open-im-server
// pkg/msgprocessor IsNotification).
func isNotification(conv string) bool { return strings.HasPrefix(conv, "n_") }

// notificationConv is the n_ twin of a chat conversation id: n_<group> or
// n_<a>_<b> (pkg/util/conversationutil GetNotificationConversationIDByConversationID).
func notificationConv(conv string) string {
	if i := strings.IndexByte(conv, '_'); i >= 0 {
		return "n_" + conv[i+1:]
	}
	return conv
}

// newestSeqs is GetMaxSeq's answer: the max seq of every conversation of
// the user that has messages, and no minSeqs (sync_msg.go GetMaxSeq fills
// maxSeqs only and drops seq 0).
func newestSeqs(b core.Backend, user string) *pb.GetMaxSeqResp {
	seqs := b.MaxSeqs(user)
	out := make(map[string]int64, len(seqs))
	for k, s := range seqs {
		out[convID(k)] = s
	}
	return &pb.GetMaxSeqResp{MaxSeqs: out}
}

// pullRanges is PullMessageBySeqs' answer: for each range, the
// conversation's messages begin..end clamped to what exists (only the last
// num when longer); a conversation the user is not in, or that gives
// nothing, is left out. isEnd is maxSeq <= end ascending, begin <= minSeq
// descending; endSeq is not set.
func pullRanges(b core.Backend, r *pb.PullMessageBySeqsReq) (*pb.PullMessageBySeqsResp, error) {
	res := &pb.PullMessageBySeqsResp{Msgs: map[string]*pb.PullMsgs{}, NotificationMsgs: map[string]*pb.PullMsgs{}}
	for _, sr := range r.SeqRanges {
		if isNotification(sr.ConversationID) {
			continue // notifications are pushed unstored: nothing to pull
		}
		key, ok := convKey(sr.ConversationID, r.UserID)
		if !ok {
			continue
		}
		page, err := b.Pull(r.UserID, key, sr.Begin, sr.End, sr.Num)
		if err != nil || len(page.Msgs) == 0 {
			continue
		}
		// Several ranges of one conversation are merged. The real server
		// keeps only the last one's messages (it assigns the map entry per
		// range); the SDK sends one range per conversation, where both agree.
		pm := res.Msgs[sr.ConversationID]
		if pm == nil {
			pm = &pb.PullMsgs{}
			res.Msgs[sr.ConversationID] = pm
		}
		pm.IsEnd = page.AtEnd
		if r.Order == pb.PullOrder_PullOrderDesc {
			pm.IsEnd = sr.Begin <= 1
		}
		for _, m := range page.Msgs {
			md, err := msgData(m)
			if err != nil {
				return nil, err
			}
			pm.Msgs = append(pm.Msgs, md)
		}
	}
	return res, nil
}

// pullSeqs is GetSeqMessage's answer: the listed seqs of each conversation
// that exist; isEnd and endSeq tell when a seq beyond the last was asked
// for (ascending) or before the first (descending). Every conversation the
// user is in gets an entry, empty or not.
func pullSeqs(b core.Backend, r *pb.GetSeqMessageReq) (*pb.GetSeqMessageResp, error) {
	res := &pb.GetSeqMessageResp{Msgs: map[string]*pb.PullMsgs{}, NotificationMsgs: map[string]*pb.PullMsgs{}}
	maxes := b.MaxSeqs(r.UserID)
	for _, cs := range r.Conversations {
		if isNotification(cs.ConversationID) {
			res.NotificationMsgs[cs.ConversationID] = &pb.PullMsgs{}
			continue
		}
		key, ok := convKey(cs.ConversationID, r.UserID)
		if !ok {
			continue
		}
		maxSeq, ok := maxes[key]
		if !ok {
			continue
		}
		pm := res.Msgs[cs.ConversationID]
		if pm == nil {
			pm = &pb.PullMsgs{}
			res.Msgs[cs.ConversationID] = pm
		}
		var valid []int64
		for _, s := range cs.Seqs {
			switch {
			case s >= 1 && s <= maxSeq:
				valid = append(valid, s)
			case s < 1 && r.Order == pb.PullOrder_PullOrderDesc:
				pm.IsEnd, pm.EndSeq = true, 1
			case s > maxSeq && r.Order == pb.PullOrder_PullOrderAsc:
				pm.IsEnd, pm.EndSeq = true, maxSeq
			}
		}
		slices.Sort(valid)
		valid = slices.Compact(valid)
		for i := 0; i < len(valid); {
			j := i
			for j+1 < len(valid) && valid[j+1] == valid[j]+1 {
				j++
			}
			page, err := b.Pull(r.UserID, key, valid[i], valid[j], int64(j-i+1))
			if err != nil {
				break
			}
			for _, m := range page.Msgs {
				md, err := msgData(m)
				if err != nil {
					return nil, err
				}
				pm.Msgs = append(pm.Msgs, md)
			}
			i = j + 1
		}
	}
	return res, nil
}

// hasReadAndMaxSeqs is GetConversationsHasReadAndMaxSeq's answer for the
// listed conversations, or all of the user's when none is listed: max seq
// and has-read seq of each that has messages. No send time of the last
// message is kept here (maxSeqTime 0) and nothing is pinned.
func hasReadAndMaxSeqs(b core.Backend, reads *readSeqs, r *pb.GetConversationsHasReadAndMaxSeqReq) *pb.GetConversationsHasReadAndMaxSeqResp {
	res := &pb.GetConversationsHasReadAndMaxSeqResp{Seqs: map[string]*pb.Seqs{}}
	var want map[string]bool
	if len(r.ConversationIDs) > 0 {
		want = make(map[string]bool, len(r.ConversationIDs))
		for _, id := range r.ConversationIDs {
			want[id] = true
		}
	}
	for k, s := range b.MaxSeqs(r.UserID) {
		id := convID(k)
		if want != nil && !want[id] {
			continue
		}
		res.Seqs[id] = &pb.Seqs{MaxSeq: s, HasReadSeq: min(reads.get(r.UserID, id), s)}
	}
	return res
}

// lastMessages is GetLastMessage's answer: the last message of each listed
// conversation the user is in.
func lastMessages(b core.Backend, r *pb.GetLastMessageReq) (*pb.GetLastMessageResp, error) {
	res := &pb.GetLastMessageResp{Msgs: map[string]*pb.MsgData{}}
	maxes := b.MaxSeqs(r.UserID)
	for _, id := range r.ConversationIDs {
		key, ok := convKey(id, r.UserID)
		if !ok {
			continue
		}
		last, ok := maxes[key]
		if !ok {
			continue
		}
		page, err := b.Pull(r.UserID, key, last, last, 1)
		if err != nil || len(page.Msgs) == 0 {
			continue
		}
		md, err := msgData(page.Msgs[len(page.Msgs)-1])
		if err != nil {
			return nil, err
		}
		res.Msgs[id] = md
	}
	return res, nil
}

// chatConvID is the chat conversation a MsgData goes to.
func chatConvID(md *pb.MsgData) string {
	if md.SessionType == wire.SessionGroup {
		return wire.GroupConversationID(md.GroupID)
	}
	return wire.SingleConversationID(md.SendID, md.RecvID)
}
