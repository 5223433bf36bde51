package openim

import (
	wire "github.com/imbench/imbench/wire/openim"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// API is a client of openim-api's admin REST routes: every route is a POST
// with a JSON body, an operationID header and (but for get_admin_token) a
// token header; every answer is HTTP 200 with {errCode, errMsg, errDlt, data}.
type API struct {
	Base    string // e.g. http://127.0.0.1:10002
	Secret  string
	AdminID string
	HTTP    *http.Client

	opSeq atomic.Uint64
}

// APIError is an errCode other than 0.
type APIError struct {
	Path string
	Code int
	Msg  string
	Dlt  string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: errCode %d %s", e.Path, e.Code, e.Msg)
	if e.Dlt != "" {
		s += ": " + firstLine(e.Dlt)
	}
	return s
}

// Code returns the errCode carried by err, or 0.
func Code(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Code
	}
	return 0
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

func (a *API) client() *http.Client {
	if a.HTTP != nil {
		return a.HTTP
	}
	return http.DefaultClient
}

// Call posts body to path and decodes the answer's data into out (if not nil).
func (a *API) Call(ctx context.Context, path, token string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(a.Base, "/")+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("operationID", "imbench-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.FormatUint(a.opSeq.Add(1), 10))
	if token != "" {
		req.Header.Set("token", token)
	}
	resp, err := a.client().Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", path, resp.StatusCode, firstLine(string(data)))
	}
	var env struct {
		ErrCode int             `json:"errCode"`
		ErrMsg  string          `json:"errMsg"`
		ErrDlt  string          `json:"errDlt"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s: not an OpenIM API answer: %s", path, firstLine(string(data)))
	}
	if env.ErrCode != 0 {
		return &APIError{Path: path, Code: env.ErrCode, Msg: env.ErrMsg, Dlt: env.ErrDlt}
	}
	if out != nil && len(env.Data) > 0 && string(env.Data) != "null" {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return fmt.Errorf("%s: decode data: %w", path, err)
		}
	}
	return nil
}

type tokenData struct {
	Token             string `json:"token"`
	ExpireTimeSeconds int64  `json:"expireTimeSeconds"`
}

// AdminToken exchanges the secret for an admin token.
func (a *API) AdminToken(ctx context.Context) (string, error) {
	var d tokenData
	err := a.Call(ctx, "/auth/get_admin_token", "", map[string]string{"secret": a.Secret, "userID": a.AdminID}, &d)
	if err != nil {
		return "", err
	}
	if d.Token == "" {
		return "", errors.New("/auth/get_admin_token: empty token")
	}
	return d.Token, nil
}

// UserToken gets a user token for one platform. OpenIM's default multi-login
// policy kicks the previous tokens of that platform, so call it once per
// (user, platform) and reuse the token.
func (a *API) UserToken(ctx context.Context, admin, userID string, platform int) (string, error) {
	var d tokenData
	err := a.Call(ctx, "/auth/get_user_token", admin, map[string]any{"userID": userID, "platformID": platform}, &d)
	if err == nil && d.Token == "" {
		err = errors.New("/auth/get_user_token: empty token")
	}
	return d.Token, err
}

// Batch is the number of ids per call OpenIM's own test programs use.
const Batch = 1000

// RegisterUsers registers the ids that are not registered yet. user_register
// is all-or-nothing, so account_check first makes setup repeatable.
func (a *API) RegisterUsers(ctx context.Context, admin string, ids []string) (registered int, err error) {
	for start := 0; start < len(ids); start += Batch {
		chunk := ids[start:min(start+Batch, len(ids))]
		var check struct {
			Results []struct {
				UserID        string `json:"userID"`
				AccountStatus int    `json:"accountStatus"`
			} `json:"results"`
		}
		if err := a.Call(ctx, "/user/account_check", admin, map[string]any{"checkUserIDs": chunk}, &check); err != nil {
			return registered, err
		}
		exists := make(map[string]bool, len(check.Results))
		for _, r := range check.Results {
			exists[r.UserID] = r.AccountStatus == 1
		}
		type userInfo struct {
			UserID   string `json:"userID"`
			Nickname string `json:"nickname"`
			FaceURL  string `json:"faceURL"`
			Ex       string `json:"ex"`
		}
		var users []userInfo
		for _, id := range chunk {
			if !exists[id] {
				users = append(users, userInfo{UserID: id, Nickname: id})
			}
		}
		if len(users) == 0 {
			continue
		}
		if err := a.setupCall(ctx, "/user/user_register", admin, map[string]any{"users": users}, nil); err != nil {
			return registered, err
		}
		registered += len(users)
	}
	return registered, nil
}

// ImportFriends makes owner a friend of each id, both ways, without approval.
func (a *API) ImportFriends(ctx context.Context, admin, owner string, friends []string) error {
	for start := 0; start < len(friends); start += Batch {
		chunk := friends[start:min(start+Batch, len(friends))]
		err := a.setupCall(ctx, "/friend/import_friend", admin, map[string]any{"ownerUserID": owner, "friendUserIDs": chunk}, nil)
		if err != nil && Code(err) != wire.CodeRelationship {
			return err
		}
	}
	return nil
}

// CreateGroup creates a working group (groupType 2, the only type OpenIM v3
// accepts) with a client-chosen id, then invites the members beyond the
// first batch, inviteBatch at a time. It returns how many invitations the
// server answered with its join-seq refusal (see inviteSeqRefused).
func (a *API) CreateGroup(ctx context.Context, admin, groupID, owner string, members []string) (seqRefused int, err error) {
	others := make([]string, 0, len(members))
	for _, m := range members {
		if m != owner {
			others = append(others, m)
		}
	}
	first := others[:min(Batch, len(others))]
	err = a.setupCall(ctx, "/group/create_group", admin, map[string]any{
		"ownerUserID":   owner,
		"memberUserIDs": first,
		"adminUserIDs":  []string{},
		"groupInfo":     map[string]any{"groupID": groupID, "groupName": groupID, "groupType": 2, "needVerification": 2},
	}, nil)
	if err != nil {
		return 0, err
	}
	for start := len(first); start < len(others); start += inviteBatch {
		chunk := others[start:min(start+inviteBatch, len(others))]
		err := a.setupCall(ctx, "/group/invite_user_to_group", admin, map[string]any{"groupID": groupID, "invitedUserIDs": chunk, "reason": ""}, nil)
		switch {
		case inviteSeqRefused(err):
			seqRefused++
		case err != nil:
			return seqRefused, err
		}
	}
	if seqRefused > 0 {
		// The refusal came after the members were added: make sure.
		var list struct {
			Total int `json:"total"`
		}
		err := a.setupCall(ctx, "/group/get_group_member_list", admin, map[string]any{"groupID": groupID,
			"pagination": map[string]any{"pageNumber": 1, "showNumber": 1}}, &list)
		if err != nil {
			return seqRefused, err
		}
		if list.Total != len(others)+1 {
			return seqRefused, fmt.Errorf("group %s has %d members after its invitations (answered %q), not %d",
				groupID, list.Total, "maxSeq is invalid", len(others)+1)
		}
	}
	return seqRefused, nil
}

// inviteBatch is the most users an invitation carries: what
// open-im-server v3.8's InviteUserToGroup adds to the database at once
// before it sets their join seq.
const inviteBatch = 50

// inviteSeqRefused reports open-im-server v3.8.3's answer to an invitation
// that added its members: InviteUserToGroup adds up to 50 members, then
// asks the conversation service to set their join seq to 0, which that
// request's own check refuses (SetConversationMaxSeqReq.Check: "maxSeq is
// invalid", 1001). The members are in the group; only their join seq was
// not set.
func inviteSeqRefused(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == wire.CodeArgs && ae.Dlt == "maxSeq is invalid"
}

// setupRetries is how often a setup call is tried again after the server's
// own failure (errCode 500, such as a database deadlock), with a backoff.
const setupRetries = 3

// setupCall is Call for setup: a server error is tried again. What the
// first attempt made may then exist already, which each caller accepts.
func (a *API) setupCall(ctx context.Context, path, token string, body, out any) error {
	err := a.Call(ctx, path, token, body, out)
	for i := 0; i < setupRetries && Code(err) == wire.CodeServerInternal; i++ {
		select {
		case <-time.After(time.Duration(200<<i) * time.Millisecond):
		case <-ctx.Done():
			return err
		}
		err = a.Call(ctx, path, token, body, out)
		if path == "/group/create_group" && Code(err) == wire.CodeGroupExisted {
			return nil // the failed attempt had made it
		}
	}
	return err
}
