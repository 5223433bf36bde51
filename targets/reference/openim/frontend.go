package openim

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

// FrontEnd is OpenIM's protocol as a server process starts it: the REST API
// where the core is, the gateway where connections are, and OpenIM's series
// on the process's registry.
type FrontEnd struct {
	Metrics *Metrics
	Log     *slog.Logger
	// Notifications makes the API send what open-im-server sends when a
	// group is created (1501), members are invited (1509) and friends are
	// imported (1201 per friend, an approved application), as its
	// notification.yml has them (notify.go): a stored copy in the group's
	// or the pair's chat conversation, which takes a seq, counts as a
	// message and is pushed and pulled like one, and an unstored push (seq
	// 0) in the n_ conversation, which is what makes an OpenIM SDK sync its
	// friends and groups. The real server always sends them; imbench-target
	// does by default (-openim-notifications). The zero value sends none.
	// Set it before API is called.
	Notifications bool
	// UnreadNotifications names the notifications, by notification.yml key
	// (ParseUnread), whose chat copy counts as unread (unreadCount: true).
	// None does as released; OpenIM's integration_test guide sets
	// groupCreated and friendApplicationApproved for its unread check.
	UnreadNotifications map[string]bool
	// InviteSeqRefusal answers /group/invite_user_to_group as
	// open-im-server v3.8.3 does: it adds the first 50 invited (one
	// database batch), notifies them, then fails to set their join seq (a
	// request for seq 0, which the conversation service's own check
	// refuses) and answers 1001 "maxSeq is invalid"; the rest are not
	// added. Off by default (-openim-invite-seq-refusal).
	InviteSeqRefusal bool

	reads *readSeqs
}

// New registers OpenIM's series on m.
func New(m *core.Metrics, log *slog.Logger) *FrontEnd {
	return &FrontEnd{Metrics: NewMetrics(m), Log: log, reads: newReadSeqs()}
}

// API serves openim-api's routes over c.
func (f *FrontEnd) API(c *core.Core) http.Handler {
	a := NewAPI(c, f.Metrics)
	a.Notifications, a.UnreadNotifications, a.reads = f.Notifications, f.UnreadNotifications, f.reads
	a.InviteSeqRefusal = f.InviteSeqRefusal
	return a
}

// Gateway serves msggateway over b; readTimeout 0 keeps PongWait.
func (f *FrontEnd) Gateway(b core.Backend, readTimeout time.Duration) http.Handler {
	gw := NewGateway(b, f.Metrics, f.Log)
	gw.reads = f.reads
	if readTimeout > 0 {
		gw.ReadTimeout = readTimeout
	}
	return gw
}
