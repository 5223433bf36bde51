package wukongim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// api serves the routes of the real server's port 5001 that a load client
// uses (wukongim.md §8, wire/wukongim/api.go). The core's secret is the
// managerToken: every request, unknown paths included, needs it in the
// "token" header or gets a bare 401, unless the front end is Open (no
// managerToken, as the real server's default configuration). Answers are the real envelopes:
// 200 {"status":200} (with "data" where the real one has it), 400
// {"msg":…,"status":400}, or the bare JSON some routes answer.
type api struct {
	f      *FrontEnd
	c      *core.Core
	routes map[string]route
}

type route struct {
	method string
	h      handler
}

// A handler's answer: nil is {"status":200}; an error is 400.
type handler func(r *http.Request, body []byte) (any, error)

// badRequest is a refusal answered 400 with its text.
type badRequest string

func (e badRequest) Error() string { return string(e) }

func refuse(format string, a ...any) error { return badRequest(fmt.Sprintf(format, a...)) }

func newAPI(f *FrontEnd, c *core.Core) *api {
	a := &api{f: f, c: c}
	a.routes = map[string]route{
		wire.PathUserToken:          {http.MethodPost, a.userToken},
		wire.PathChannel:            {http.MethodPost, a.channel},
		wire.PathSubscriberAdd:      {http.MethodPost, a.subscriberAdd},
		wire.PathSubscriberRemove:   {http.MethodPost, a.subscriberRemove},
		wire.PathChannelDelete:      {http.MethodPost, a.channelDelete},
		wire.PathChannelMessageSync: {http.MethodPost, a.messageSync},
		wire.PathChannelMaxSeq:      {http.MethodGet, a.maxSeq},
		wire.PathMessageSend:        {http.MethodPost, a.messageSend},
		wire.PathRoute:              {http.MethodGet, a.route},
		wire.PathHealth:             {http.MethodGet, func(*http.Request, []byte) (any, error) { return wire.HealthResp{Status: "ok"}, nil }},
		wire.PathVarz:               {http.MethodGet, a.varz},
		wire.PathUserOnlineStatus:   {http.MethodPost, a.onlineStatus},
		wire.PathConversationSync:   {http.MethodPost, a.conversationSync},
		wire.PathConnz:              {http.MethodGet, a.connz},
	}
	return a
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.f.Open && !a.c.CheckSecret(r.Header.Get("token")) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	rt, ok := a.routes[r.URL.Path]
	if !ok || rt.method != r.Method {
		writeJSON(w, http.StatusNotFound, wire.Result{Msg: "404 page not found", Status: http.StatusNotFound})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, wire.Result{Msg: err.Error(), Status: http.StatusBadRequest})
		return
	}
	out, err := rt.h(r, body)
	switch {
	case errors.Is(err, errStalled):
		// no answer: the client gave up (stall)
	case err != nil:
		writeJSON(w, http.StatusBadRequest, wire.Result{Msg: err.Error(), Status: http.StatusBadRequest})
	case out == nil:
		writeJSON(w, http.StatusOK, wire.Result{Status: http.StatusOK})
	default:
		writeJSON(w, http.StatusOK, out)
	}
}

// errStalled is a handler's "I never answered" (the stall-pulls fault).
var errStalled = errors.New("stalled")

// stallMax bounds how long a stalled request holds its connection when the
// client never gives up.
const stallMax = 2 * time.Minute

// stall holds r unanswered until its client gives up (or stallMax).
func stall(r *http.Request) error {
	t := time.NewTimer(stallMax)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
	return errStalled
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return refuse("bad request body: %v", err)
	}
	return nil
}
