package wildfire

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// api serves the admin routes of the real server's port 18080 that a load
// client uses (wildfire.md §4, wire/wildfire/api.go). Every route but GET
// /admin/health is a POST signed with the core's secret (nonce, timestamp,
// sign: 239 missing, 243 older than 2 h, 244 wrong, answered with result
// {code, msg} as the real server's check does); every answer is HTTP 200
// with the {code, msg, result} envelope and the real server's msg. An unknown path, or a route
// asked with another method, is HTTP 404 with code 254 in the envelope.
type api struct {
	f      *FrontEnd
	routes map[string]handler
}

// A handler's answer: a result (nil for none) and a code.
type handler func(body []byte) (any, wire.ErrorCode)

const maxBody = 16 << 20

// API serves the admin API over the front end's core.
func (f *FrontEnd) API() http.Handler {
	a := &api{f: f}
	a.routes = map[string]handler{
		wire.PathUserCreate:     a.userCreate,
		wire.PathUserGetToken:   a.getToken,
		wire.PathOnlineCount:    a.onlineCount,
		wire.PathGroupCreate:    a.groupCreate,
		wire.PathGroupMemberAdd: a.groupMemberAdd,
		wire.PathChatroomCreate: a.chatroomCreate,
		wire.PathUserDestroy:    a.userDestroy,
		wire.PathGroupDismiss:   a.groupDismiss,
		wire.PathChatroomDel:    a.chatroomDel,
		wire.PathUserGetInfo:    a.userGetInfo,
		wire.PathGroupGetInfo:   a.groupGetInfo,
	}
	return a
}

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == wire.PathHealth && r.Method == http.MethodGet {
		writeResult(w, http.StatusOK, a.health(), wire.CodeSuccess)
		return
	}
	h, ok := a.routes[r.URL.Path]
	if !ok || r.Method != http.MethodPost {
		writeResult(w, http.StatusNotFound, nil, wire.CodeNotImplement)
		return
	}
	nonce, ts, sign := wire.AdminHeaderValues(r.Header)
	if code := wire.CheckAdminSign(nonce, ts, sign, a.f.c.Secret(), time.Now().UnixMilli(), false); code != wire.CodeSuccess {
		writeRefusal(w, code)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeResult(w, http.StatusOK, nil, wire.CodeInvalidData)
		return
	}
	out, code := h(body)
	writeResult(w, http.StatusOK, out, code)
}

// writeResult answers a route's outcome as the real server's sendResponse
// does: the code, its msg (apiMsg) and the result, which is left out on an
// error (Gson omits a null).
func writeResult(w http.ResponseWriter, status int, result any, code wire.ErrorCode) {
	if code != wire.CodeSuccess {
		result = nil
	}
	writeEnvelope(w, status, wire.APIResult[any]{Code: int(code), Msg: apiMsg(code), Result: result})
}

// refusal is the result the real server gives a request its admin check
// refuses (Action.doAction: 239, 243, 244; 250 there too): an envelope of
// the same code and msg with no result of its own.
type refusal struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
}

// writeRefusal answers a refusal of the admin check as the real server
// does (wildfire.md §15): HTTP 200, the code and msg, and the result filled
// with {code, msg} again, e.g.
// {"code":244,"msg":"auth failure","result":{"code":244,"msg":"auth failure"}}.
func writeRefusal(w http.ResponseWriter, code wire.ErrorCode) {
	msg := apiMsg(code)
	writeEnvelope(w, http.StatusOK, wire.APIResult[any]{Code: int(code), Msg: msg, Result: refusal{Code: int(code), Msg: msg}})
}

func writeEnvelope(w http.ResponseWriter, status int, env wire.APIResult[any]) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(env)
}

// decode parses a JSON body: 2 when it does not parse.
func decode(body []byte, v any) wire.ErrorCode {
	if err := json.Unmarshal(body, v); err != nil {
		return wire.CodeInvalidData
	}
	return wire.CodeSuccess
}
