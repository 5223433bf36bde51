package wildfire

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// Admin is a client of Wildfire's admin API: signed JSON POSTs.
type Admin struct {
	Base   string
	Secret string
	HTTP   *http.Client
	redone atomic.Int64 // writes made again after a timeout (again)
}

func newAdmin(cfg Config) *Admin {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Parallel * 2
	return &Admin{Base: cfg.AdminURL, Secret: cfg.Secret, HTTP: &http.Client{Timeout: 2 * cfg.Timeout, Transport: tr}}
}

// APIError is a refusal of the admin API: an HTTP status other than 200,
// or an envelope whose code is not 0, with the server's msg.
type APIError struct {
	Path string
	HTTP int
	Code wire.ErrorCode
	Msg  string
}

// maxMsg bounds how much of the server's msg an error quotes.
const maxMsg = 120

// Error is one line: the path, the code and the server's msg, and for the
// refusals of the admin check (AdminAction.preAction: 239, 243, 244, 250)
// what to check. It never holds the secret.
func (e *APIError) Error() string {
	if e.HTTP != http.StatusOK {
		return fmt.Sprintf("Wildfire admin API %s: HTTP %d: is this Wildfire's admin port (http.admin.port)?", e.Path, e.HTTP)
	}
	msg := e.Msg
	if msg == "" {
		msg = e.Code.String()
	}
	if r := []rune(msg); len(r) > maxMsg {
		msg = string(r[:maxMsg]) + "…"
	}
	s := fmt.Sprintf("Wildfire admin API %s: code %d %s", e.Path, int(e.Code), strconv.Quote(msg))
	switch e.Code {
	case wire.CodeAuthFailure:
		s += ": the server refused the signature: check IM_SECRET (http.admin.secret_key)"
	case wire.CodeSignExpired:
		s += ": the signature's timestamp is over 2 h behind the server's clock: check this machine's clock against the server's (or set http.admin.no_check_time true)"
	case wire.CodeAPINotSigned:
		s += ": the server saw no complete signature (nonce, timestamp and sign headers): check that no proxy between here and the server drops them"
	case wire.CodeOverFrequency:
		s += ": the server's rate limit refused it: raise http.admin.rate_limit and client.request_rate_limit in wildfirechat.conf (the seed's method sets both to 1000000; runbooks/wildfire.md)"
	}
	return s
}

// envelope is an admin answer as read before its result: code first (a
// pointer, to tell an answer without one), then the result left raw, since
// on a refusal of the admin check the real server fills it with an object
// ({"code":244,"msg":"auth failure"}) whatever the call's result type is.
type envelope struct {
	Code   *int            `json:"code"`
	Msg    string          `json:"msg"`
	Result json.RawMessage `json:"result"`
}

// decodeAnswer reads one admin answer of path: the code, and only when it
// is 0 the result into T (an absent or null result leaves T zero). A
// non-zero code is an *APIError.
func decodeAnswer[T any](path string, raw []byte) (T, error) {
	var zero T
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil || env.Code == nil {
		return zero, fmt.Errorf("Wildfire admin API %s: the answer is not a {code, msg, result} envelope: %s", path, snippet(raw))
	}
	if *env.Code != 0 {
		return zero, &APIError{Path: path, HTTP: http.StatusOK, Code: wire.ErrorCode(*env.Code), Msg: env.Msg}
	}
	var out T
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return out, nil
	}
	if err := json.Unmarshal(env.Result, &out); err != nil {
		return zero, fmt.Errorf("Wildfire admin API %s: code 0 but the result is not a %T: %s", path, out, snippet(env.Result))
	}
	return out, nil
}

// snippet is the start of an answer, quoted on one line.
func snippet(raw []byte) string {
	if r := []rune(string(raw)); len(r) > 80 {
		return strconv.Quote(string(r[:80])) + "…"
	}
	return strconv.Quote(string(raw))
}

// call signs and posts body to path (nil body: GET, unsigned) and decodes
// the answer's envelope: code first, then the result into T.
func call[T any](ctx context.Context, a *Admin, path string, body any) (T, error) {
	var zero T
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return zero, err
		}
		method, rd = http.MethodPost, bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return zero, err
	}
	req.Header.Set("Content-Type", "application/json")
	if body != nil {
		var nonce [8]byte
		rand.Read(nonce[:])
		wire.SetAdminHeaders(req.Header, hex.EncodeToString(nonce[:]), a.Secret, time.Now().UnixMilli())
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return zero, fmt.Errorf("Wildfire admin API %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return zero, fmt.Errorf("Wildfire admin API %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return zero, &APIError{Path: path, HTTP: resp.StatusCode}
	}
	return decodeAnswer[T](path, raw)
}

// CreateUser creates a user whose name is its id.
func (a *Admin) CreateUser(ctx context.Context, id string) error {
	_, err := call[wire.CreateUserResult](ctx, a, wire.PathUserCreate, wire.CreateUserReq{UserID: id, Name: id, DisplayName: id})
	return err
}

// GetToken opens a session (clientID) for user id on platform.
func (a *Admin) GetToken(ctx context.Context, id, clientID string, platform int) (string, error) {
	r, err := call[wire.GetTokenResult](ctx, a, wire.PathUserGetToken, wire.GetTokenReq{UserID: id, ClientID: clientID, Platform: int32(platform)})
	return r.Token, err
}

// CreateGroup creates group id owned by its first member, with members. A
// creation that timed out is asked again: "already exists" then means the
// first was done.
func (a *Admin) CreateGroup(ctx context.Context, id string, members []string) error {
	req := wire.CreateGroupReq{Operator: members[0], Group: wire.GroupJSON{
		GroupInfo: wire.GroupInfoJSON{TargetID: id, Name: id, Owner: members[0], Type: wire.GroupNormal},
		Members:   memberList(members)}}
	return a.again(ctx, func() error {
		_, err := call[wire.CreateGroupResult](ctx, a, wire.PathGroupCreate, req)
		return err
	}, func(err error) bool {
		var ae *APIError
		return errors.As(err, &ae) && ae.Code == wire.CodeGroupAlreadyExist
	})
}

// AddMembers adds members to group id. An add that timed out is asked
// again: the admin's add of members already in is answered 0
// (MemoryMessagesStore.addGroupMembers).
func (a *Admin) AddMembers(ctx context.Context, id, operator string, members []string) error {
	return a.again(ctx, func() error {
		_, err := call[json.RawMessage](ctx, a, wire.PathGroupMemberAdd, wire.AddGroupMemberReq{Operator: operator, GroupID: id, Members: memberList(members)})
		return err
	}, func(error) bool { return false })
}

// again makes an admin write that the server may answer 249 "timeout" (or
// not in time) while doing it all the same, as a real server behind does:
// a write that timed out is made again, confirmEvery later, at most
// confirmTries times in all; after a timeout, an error that done says
// means "done already" is success.
func (a *Admin) again(ctx context.Context, write func() error, done func(error) bool) error {
	var err error
	for i := range confirmTries {
		if i > 0 && !recheckPause(ctx) {
			return err
		}
		if i > 0 {
			a.redone.Add(1)
		}
		err = write()
		switch {
		case err == nil:
			return nil
		case i > 0 && done(err):
			return nil
		case !timedOut(ctx, err):
			return err
		}
	}
	return err
}

// CreateChatroom creates chatroom id.
func (a *Admin) CreateChatroom(ctx context.Context, id string) error {
	_, err := call[wire.CreateChatroomResult](ctx, a, wire.PathChatroomCreate, wire.CreateChatroomReq{ChatroomID: id, Title: id})
	return err
}

// OnlineCount is the server's online users, summed over its nodes.
func (a *Admin) OnlineCount(ctx context.Context) (int, error) {
	nodes, err := call[[]wire.OnlineCountNode](ctx, a, wire.PathOnlineCount, struct{}{})
	n := 0
	for _, nd := range nodes {
		n += nd.Count
	}
	return n, err
}

// Health is GET /admin/health (unsigned): the server answers at all.
func (a *Admin) Health(ctx context.Context) error {
	_, err := call[json.RawMessage](ctx, a, wire.PathHealth, nil)
	return err
}

func memberList(ids []string) []wire.GroupMemberJSON {
	out := make([]wire.GroupMemberJSON, len(ids))
	for i, id := range ids {
		out[i] = wire.GroupMemberJSON{MemberID: id, Type: wire.MemberNormal}
	}
	return out
}
