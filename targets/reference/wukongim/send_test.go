package wukongim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// Twenty SENDs in one write: SENDACKs in order with contiguous seqs, RECVs
// in order at the peer (channel = the sender, RedDot kept), at the sender's
// other device (channel = the peer, RedDot cleared), none at the sending
// connection; with encryption and without, over TCP and WebSocket.
func TestPersonMessagesInOrder(t *testing.T) {
	for _, enc := range []bool{true, false} {
		tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{NoEncryption: !enc})
		users(t, tg, "a", "b")
		for _, via := range both {
			t.Run(fmt.Sprintf("%s/encryption=%v", via, enc), func(t *testing.T) {
				a := online(t, tg, via, "a")
				a2 := dial(t, tg, via)
				a2.connect(login{uid: "a", token: "tk-a", deviceID: "a-second"})
				b := online(t, tg, via, "b")
				if (a.cipher != nil) != enc {
					t.Fatalf("cipher %v with encryption %v", a.cipher != nil, enc)
				}
				var sends []wire.Packet
				for i := range 20 {
					sends = append(sends, a.sendPacket("b", wire.ChannelPerson, fmt.Sprint("m", i)))
				}
				a.write(sends...)
				var first uint32
				for i := range 20 {
					ack, ok := a.must(5 * time.Second).(wire.Sendack)
					if !ok || ack.ReasonCode != wire.ReasonSuccess || ack.ClientSeq != sends[i].(wire.Send).ClientSeq ||
						ack.Flags != wire.FlagRedDot || ack.MessageID == 0 {
						t.Fatalf("SENDACK %d: %+v", i, ack)
					}
					if i == 0 {
						first = ack.MessageSeq
					} else if ack.MessageSeq != first+uint32(i) {
						t.Fatalf("SENDACK %d seq %d after %d", i, ack.MessageSeq, first)
					}
				}
				for i := range 20 {
					r, text := b.recv(5 * time.Second)
					if text != fmt.Sprint("m", i) || r.MessageSeq != first+uint32(i) || r.FromUID != "a" || r.ChannelID != "a" ||
						r.ChannelType != wire.ChannelPerson || r.Flags != wire.FlagRedDot || r.ClientMsgNo != "b-"+text {
						t.Fatalf("peer's RECV %d: %+v %q", i, r, text)
					}
					if d := time.Now().Unix() - int64(r.Timestamp); d < 0 || d > 5 {
						t.Fatalf("timestamp %d", r.Timestamp)
					}
					r, text = a2.recv(5 * time.Second)
					if text != fmt.Sprint("m", i) || r.ChannelID != "b" || r.Flags != 0 {
						t.Fatalf("sender's other device's RECV %d: %+v %q", i, r, text)
					}
					b.write(wire.Recvack{Flags: r.Flags, MessageID: r.MessageID, MessageSeq: r.MessageSeq})
				}
				a.quiet()
			})
		}
	}
}

// Group messages reach every other member; a non-member is refused with 3,
// an unknown group with 5, a bad msgKey or payload with 9, another channel
// type with 23.
func TestGroupMessagesAndRefusals(t *testing.T) {
	tg := reftest.StartWuKongIM(t, core.Faults{}, 0)
	users(t, tg, "a", "b", "c", "d")
	group(t, tg, "g1", "a", "b", "c")
	refusedIDs := map[int64]bool{}
	for _, via := range both {
		a, b, c, d := online(t, tg, via, "a"), online(t, tg, via, "b"), online(t, tg, via, "c"), online(t, tg, via, "d")
		a.write(a.sendPacket("g1", wire.ChannelGroup, "hi all"))
		if ack := a.must(5 * time.Second).(wire.Sendack); ack.ReasonCode != wire.ReasonSuccess {
			t.Fatalf("SENDACK %+v", ack)
		}
		for _, m := range []*client{b, c} {
			if r, text := m.recv(5 * time.Second); text != "hi all" || r.ChannelID != "g1" || r.ChannelType != wire.ChannelGroup || r.FromUID != "a" {
				t.Fatalf("RECV %+v %q", r, text)
			}
		}
		badKey := a.sendPacket("g1", wire.ChannelGroup, "x")
		badKey.MsgKey = "00000000000000000000000000000000"
		badPayload := a.sendPacket("g1", wire.ChannelGroup, "x")
		badPayload.Payload = []byte("not base64!")
		badPayload.MsgKey = a.cipher.MsgKey(badPayload.AppendSign(nil))
		for _, cs := range []struct {
			c    *client
			s    wire.Send
			want wire.ReasonCode
		}{
			{d, d.sendPacket("g1", wire.ChannelGroup, "x"), wire.ReasonSubscriberNotExist},
			// The real server never answers ChannelNotExist: an unknown
			// channel has no subscribers, the sender is not one.
			{a, a.sendPacket("nogroup", wire.ChannelGroup, "x"), wire.ReasonSubscriberNotExist},
			{a, badKey, wire.ReasonPayloadDecodeError},
			{a, badPayload, wire.ReasonPayloadDecodeError},
			{a, a.sendPacket("g1", wire.ChannelInfo, "x"), wire.ReasonNotSupportChannelType},
			{a, a.sendPacket("g1", wire.ChannelLive, "x"), wire.ReasonSubscriberNotExist}, // no chatroom g1
		} {
			cs.c.write(cs.s)
			ack := cs.c.must(5 * time.Second).(wire.Sendack)
			if ack.ReasonCode != cs.want || ack.ClientSeq != cs.s.ClientSeq {
				t.Fatalf("SENDACK %+v, want reason %d", ack, cs.want)
			}
			// A refused SEND's answer carries the fresh id the real server
			// gives every SEND as it reads it, and no seq.
			if ack.MessageID == 0 || ack.MessageSeq != 0 || refusedIDs[ack.MessageID] {
				t.Fatalf("refused SENDACK %+v: want a fresh message id and seq 0", ack)
			}
			refusedIDs[ack.MessageID] = true
		}
		b.quiet()
		c.quiet()
	}
}

// A RECV not acknowledged is sent again, the same frame with the same seq
// and no DUP flag, RetryMax times, then no more; an acknowledged one is not.
func TestUnackedRecvIsSentAgain(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{RetryInterval: 150 * time.Millisecond, RetryMax: 2})
	users(t, tg, "a", "b")
	for i, via := range both {
		a, b := online(t, tg, via, "a"), online(t, tg, via, "b")
		a.write(a.sendPacket("b", wire.ChannelPerson, "once"))
		a.write(a.sendPacket("b", wire.ChannelPerson, "acked"))
		first, _ := b.recv(5 * time.Second)
		acked, _ := b.recv(5 * time.Second)
		b.write(wire.Recvack{Flags: acked.Flags, MessageID: acked.MessageID, MessageSeq: acked.MessageSeq})
		for range 2 {
			again, text := b.recv(5 * time.Second)
			if again.MessageSeq != first.MessageSeq || again.MessageID != first.MessageID || again.Flags != first.Flags || text != "once" {
				t.Fatalf("sent again: %+v %q, first %+v", again, text, first)
			}
		}
		time.Sleep(500 * time.Millisecond)
		b.quiet()
		if n := tg.Counter(t, "imbench_target_wukongim_recv_retries_total"); n != float64(2*(i+1)) {
			t.Fatalf("%v retries counted", n)
		}
	}
	if n := tg.Counter(t, "app_recvack_packet_count_total"); n != 2 {
		t.Fatalf("%v RECVACKs counted", n)
	}
}

// Faults reach a WuKongIM client as the counters say: a duplicated push is
// the same RECV twice; a lost message is acknowledged and never arrives; a
// skipped push is stored (messagesync has it) but not pushed.
func TestFaultsAsCounted(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       core.Faults
		counter string
		recvs   int
		stored  int
	}{
		{"duplicate", core.Faults{Duplicate: 1}, "imbench_target_fault_duplicated_pushes_total", 2, 1},
		{"lose", core.Faults{Lose: 1}, "imbench_target_fault_lost_deliveries_total", 0, 0},
		{"skip", core.Faults{SkipPush: 1}, "imbench_target_fault_skipped_pushes_total", 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tg := reftest.StartWuKongIM(t, c.f, 0)
			users(t, tg, "a", "b")
			a, b := online(t, tg, viaTCP, "a"), online(t, tg, viaTCP, "b")
			a.write(a.sendPacket("b", wire.ChannelPerson, "x"))
			ack := a.must(5 * time.Second).(wire.Sendack)
			if ack.ReasonCode != wire.ReasonSuccess {
				t.Fatalf("SENDACK %+v", ack)
			}
			var seqs []uint32
			for range c.recvs {
				r, _ := b.recv(5 * time.Second)
				seqs = append(seqs, r.MessageSeq)
				b.write(wire.Recvack{Flags: r.Flags, MessageID: r.MessageID, MessageSeq: r.MessageSeq})
			}
			b.quiet()
			if n := tg.Counter(t, c.counter); n != 1 {
				t.Fatalf("%s counted %v", c.counter, n)
			}
			if len(seqs) == 2 && seqs[0] != seqs[1] {
				t.Fatalf("duplicate with seqs %v", seqs)
			}
			var page wire.ChannelMessageSyncResp
			apiCall(t, tg, "POST", wire.PathChannelMessageSync, wire.ChannelMessageSyncReq{LoginUID: "b", ChannelID: "a",
				ChannelType: wire.ChannelPerson, Limit: 10, PullMode: wire.PullUp, StartMessageSeq: 1}, &page)
			if len(page.Messages) != c.stored {
				t.Fatalf("synced %d messages, want %d", len(page.Messages), c.stored)
			}
		})
	}
}

// Over a core and two gateways, a message crosses from one gateway to the
// other, in a person, a group and a live channel.
func TestAcrossGateways(t *testing.T) {
	tg := reftest.StartWuKongIMCluster(t, core.Faults{}, 2)
	users(t, tg, "a", "b")
	group(t, tg, "g", "a", "b")
	subscribers(t, tg, wire.PathSubscriberAdd, "room", "a", "b")
	tcps, wss := strings.Split(tg.TCPAddr, ","), strings.Split(tg.WSURL, ",")
	for _, via := range both {
		a := dialAddr(t, tcps[0], wss[0], via)
		a.connect(login{uid: "a", token: "tk-a"})
		b := dialAddr(t, tcps[1], wss[1], via)
		b.connect(login{uid: "b", token: "tk-b"})
		for _, ch := range []struct {
			id  string
			typ uint8
		}{{"b", wire.ChannelPerson}, {"g", wire.ChannelGroup}, {"room", wire.ChannelLive}} {
			a.write(a.sendPacket(ch.id, ch.typ, "across"))
			if ack := a.must(5 * time.Second).(wire.Sendack); ack.ReasonCode != wire.ReasonSuccess {
				t.Fatalf("SENDACK %+v", ack)
			}
			if r, text := b.recv(5 * time.Second); text != "across" || r.FromUID != "a" || r.ChannelType != ch.typ {
				t.Fatalf("RECV %+v %q", r, text)
			}
		}
	}
	waitCounter(t, tg, "imbench_target_pushes_total", 6)
}

// A NoPersist message, as the real server handles it (event_persist.go,
// event_pushonline.go): pushed to those online with seq 0 and its flag,
// its SENDACK a fresh id and seq 0, kept nowhere (messagesync has none)
// and never resent for want of a RECVACK.
func TestNoPersistIsPushedNotStored(t *testing.T) {
	tg := reftest.StartWuKongIMWith(t, core.Faults{}, reftest.WKOptions{RetryInterval: 150 * time.Millisecond, RetryMax: 2})
	users(t, tg, "a", "b")
	for _, via := range both {
		a, b := online(t, tg, via, "a"), online(t, tg, via, "b")
		s := a.sendPacket("b", wire.ChannelPerson, "fleeting")
		s.Flags |= wire.FlagNoPersist
		if a.cipher != nil {
			s.MsgKey = a.cipher.MsgKey(s.AppendSign(nil))
		}
		a.write(s)
		ack := a.must(5 * time.Second).(wire.Sendack)
		if ack.ReasonCode != wire.ReasonSuccess || ack.MessageID == 0 || ack.MessageSeq != 0 {
			t.Fatalf("%s: SENDACK %+v", via, ack)
		}
		r, text := b.recv(5 * time.Second)
		if text != "fleeting" || r.MessageSeq != 0 || r.Flags&wire.FlagNoPersist == 0 || r.MessageID != ack.MessageID {
			t.Fatalf("%s: RECV %+v %q", via, r, text)
		}
		time.Sleep(400 * time.Millisecond) // two retry intervals: no RECVACK was sent, no resend comes
		b.quiet()
		a.close()
		b.close()
	}
	var p wire.ChannelMessageSyncResp
	if st, body := apiCall(t, tg, "POST", wire.PathChannelMessageSync, wire.ChannelMessageSyncReq{LoginUID: "a", ChannelID: "b",
		ChannelType: wire.ChannelPerson, Limit: 10}, &p); st != 200 || len(p.Messages) != 0 {
		t.Fatalf("messagesync of a NoPersist-only channel: %d %s", st, body)
	}
}
