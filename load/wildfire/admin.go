package wildfire

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// Admin is a client of Wildfire's admin API: signed JSON POSTs.
type Admin struct {
	Base   string
	Secret string
	HTTP   *http.Client
}

func newAdmin(cfg Config) *Admin {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Parallel * 2
	return &Admin{Base: cfg.AdminURL, Secret: cfg.Secret, HTTP: &http.Client{Timeout: 2 * cfg.Timeout, Transport: tr}}
}

// APIError is a refusal of the admin API.
type APIError struct {
	Path string
	HTTP int
	Code wire.ErrorCode
	Msg  string
}

func (e *APIError) Error() string {
	switch {
	case e.HTTP != http.StatusOK:
		return fmt.Sprintf("Wildfire admin API %s: HTTP %d", e.Path, e.HTTP)
	case e.Code == wire.CodeAuthFailure || e.Code == wire.CodeAPINotSigned:
		return fmt.Sprintf("Wildfire admin API %s: code %d %s: the admin secret (IM_SECRET, the server's http.admin.secret_key) was refused", e.Path, e.Code, e.Code)
	case e.Code == wire.CodeSignExpired:
		return fmt.Sprintf("Wildfire admin API %s: code %d %s: this machine's clock is more than 2 h ahead of the server's", e.Path, e.Code, e.Code)
	case e.Code == wire.CodeOverFrequency:
		return fmt.Sprintf("Wildfire admin API %s: code 250 OverFrequency: raise the server's http.admin.rate_limit for bulk setup", e.Path)
	}
	return fmt.Sprintf("Wildfire admin API %s: code %d %s %s", e.Path, e.Code, e.Code, e.Msg)
}

// call signs and posts body to path (nil body: GET, unsigned) and decodes
// the envelope's result into out (may be nil).
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
	var env wire.APIResult[T]
	if err := json.Unmarshal(raw, &env); err != nil {
		return zero, fmt.Errorf("Wildfire admin API %s: answer is not a result envelope: %w", path, err)
	}
	if !env.OK() {
		return zero, &APIError{Path: path, HTTP: resp.StatusCode, Code: env.Err(), Msg: env.Msg}
	}
	return env.Result, nil
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

// CreateGroup creates group id owned by its first member, with members.
func (a *Admin) CreateGroup(ctx context.Context, id string, members []string) error {
	req := wire.CreateGroupReq{Operator: members[0], Group: wire.GroupJSON{
		GroupInfo: wire.GroupInfoJSON{TargetID: id, Name: id, Owner: members[0], Type: wire.GroupNormal},
		Members:   memberList(members)}}
	_, err := call[wire.CreateGroupResult](ctx, a, wire.PathGroupCreate, req)
	return err
}

// AddMembers adds members to group id.
func (a *Admin) AddMembers(ctx context.Context, id, operator string, members []string) error {
	_, err := call[json.RawMessage](ctx, a, wire.PathGroupMemberAdd, wire.AddGroupMemberReq{Operator: operator, GroupID: id, Members: memberList(members)})
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
