package openim

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// API serves the openim-api routes imbench's setup and an OpenIM SDK's
// login and sync call. Like openim-api (open-im-server internal/api
// router.go), every business route is a POST with a JSON body and an
// operationID header, every route but /auth/get_admin_token needs a token
// header, and every answer is HTTP 200 with {errCode, errMsg, errDlt,
// data}; a path that names no route is an HTTP 404 with such a body too.
type API struct {
	Core    *core.Core
	Metrics *Metrics
	// Notifications, UnreadNotifications: see FrontEnd's.
	Notifications       bool
	UnreadNotifications map[string]bool
	InviteSeqRefusal    bool // see FrontEnd's

	mux   *http.ServeMux
	meta  meta
	reads *readSeqs
}

// caller is who a request's token names.
type caller struct {
	user     string
	platform int
	admin    bool
}

// Who may call a route.
type access int

const (
	anyone    access = iota // no token: /auth/get_admin_token
	adminOnly               // the admin's token
	anyToken                // the admin's or a user's token
)

type handler func(r *http.Request, who caller, body []byte) (any, error)

// NewAPI builds the route table.
func NewAPI(c *core.Core, m *Metrics) *API {
	a := &API{Core: c, Metrics: m, mux: http.NewServeMux(), reads: newReadSeqs()}
	a.meta.init()
	a.route("/auth/get_admin_token", anyone, a.adminToken)
	a.route("/auth/get_user_token", adminOnly, a.userToken)
	a.route("/user/user_register", adminOnly, a.register)
	a.route("/user/account_check", adminOnly, a.accountCheck)
	a.route("/friend/import_friend", adminOnly, a.importFriend)
	a.route("/group/create_group", anyToken, a.createGroup)
	a.route("/group/invite_user_to_group", anyToken, a.invite)
	a.route("/group/dismiss_group", anyToken, a.dismissGroup)
	a.route("/msg/send_msg", adminOnly, a.sendMsg)
	a.route("/msg/get_server_time", anyToken, func(*http.Request, caller, []byte) (any, error) {
		return map[string]int64{"serverTime": time.Now().UnixMilli()}, nil
	})
	a.syncRoutes()
	a.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	// openim-api lists each service's metrics targets here for Prometheus'
	// http_sd. This server is scraped directly, so it lists none: the
	// openim-* jobs of prometheus/prometheus.yml stay quiet against it.
	a.mux.HandleFunc("GET /prometheus_discovery/{service}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "[]\n")
	})
	// openim-api answers a path it has no route for with gin's plain-text
	// 404; an SDK then fails to decode the body. Here the 404 keeps the
	// status and carries a body the SDK can read.
	a.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		ref := refuse(wire.CodeRecordNotFound, "no route %s %s", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(wire.APIResponse[any]{ErrCode: ref.Code, ErrMsg: ref.Msg, ErrDlt: ref.Dlt})
		a.Metrics.httpCount.WithLabelValues("<404>", r.Method, "404").Inc()
	})
	return a
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

func (a *API) route(path string, who access, h handler) {
	a.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		data, err := a.serve(r, who, h)
		env := map[string]any{"errCode": 0, "errMsg": "", "errDlt": ""}
		if err != nil {
			ref := refusalOf(err)
			env["errCode"], env["errMsg"], env["errDlt"] = ref.Code, ref.Msg, ref.Dlt
		} else if data != nil {
			env["data"] = data
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(env)
		a.Metrics.apiCount.WithLabelValues(path, r.Method, strconv.Itoa(env["errCode"].(int))).Inc()
		a.Metrics.httpCount.WithLabelValues(path, r.Method, "200").Inc()
	})
}

func (a *API) serve(r *http.Request, who access, h handler) (any, error) {
	if r.Header.Get("operationID") == "" {
		return nil, refuse(wire.CodeArgs, "header must have operationID")
	}
	var c caller
	if who != anyone {
		var err error
		if c, err = a.parseToken(r.Header.Get("token")); err != nil {
			return nil, err
		}
		if who == adminOnly && !c.admin {
			return nil, refuse(wire.CodeNoPermission, "only the admin can do this")
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, refuse(wire.CodeArgs, "%s", err)
	}
	return h(r, c, body)
}

// parseToken names a token's caller as openim-api's token middleware does
// (router.go GinParseToken, internal/rpc/auth parseToken): 1001 without a
// token, 1503 for what cannot be a token at all, 1507 for one the server
// does not know, 1506 for one a newer login replaced.
func (a *API) parseToken(t string) (caller, error) {
	if t == "" {
		return caller{}, refuse(wire.CodeArgs, "header must have token")
	}
	err := a.Core.RequireAdmin(t)
	switch {
	case err == nil:
		return caller{user: a.Core.AdminID(), platform: wire.PlatformAdmin, admin: true}, nil
	case !errors.Is(err, core.ErrNoPermission):
		if !wellFormed(t) {
			return caller{}, refuse(wire.CodeTokenMalformed, "not a token")
		}
		return caller{}, err
	}
	user, platform, ok := a.Core.TokenOwner(t)
	if !ok {
		return caller{}, core.ErrTokenUnknown.With("token not found")
	}
	if err := a.Core.CheckLogin(t, user, platform); err != nil {
		return caller{}, err
	}
	return caller{user: user, platform: platform}, nil
}

// wellFormed reports whether t has the shape of the tokens the core makes
// (48 hex digits); any other string is no token at all.
func wellFormed(t string) bool {
	if len(t) != 48 {
		return false
	}
	_, err := hex.DecodeString(t)
	return err == nil
}

// self checks that the caller may act for userID: the user itself or the
// admin (authverify CheckAccessV3).
func self(who caller, userID string) error {
	if who.admin || who.user == userID {
		return nil
	}
	return refuse(wire.CodeNoPermission, "%s cannot act for %s", who.user, userID)
}

func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return refuse(wire.CodeArgs, "%s", err)
	}
	return nil
}

type tokenResp struct {
	Token             string `json:"token"`
	ExpireTimeSeconds int64  `json:"expireTimeSeconds"`
}

const tokenExpiry = 90 * 24 * 3600 // share.yml tokenPolicy.expire: 90 days

func (a *API) adminToken(_ *http.Request, _ caller, body []byte) (any, error) {
	var req struct {
		Secret string `json:"secret"`
		UserID string `json:"userID"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	t, err := a.Core.AdminToken(req.Secret, req.UserID, wire.PlatformAdmin)
	if err != nil {
		return nil, err
	}
	a.Metrics.adminLogins.Inc() // as OpenIM v3.8.3 counts user_login_total
	return tokenResp{t, tokenExpiry}, nil
}

// userToken is /auth/get_user_token (internal/rpc/auth auth.go
// GetUserToken): no token for the admin platform or the admin user (1002).
// The real request's own check of the platform range discards its errors
// (protocol auth/auth.go GetUserTokenReq.Check), so any other platform gets
// a token there; here one outside 1–11 is refused with 1001.
func (a *API) userToken(_ *http.Request, _ caller, body []byte) (any, error) {
	var req struct {
		UserID     string `json:"userID"`
		PlatformID int    `json:"platformID"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	switch {
	case req.PlatformID == wire.PlatformAdmin:
		return nil, refuse(wire.CodeNoPermission, "platformID invalid. platformID must not be adminPlatformID")
	case req.UserID == a.Core.AdminID():
		return nil, refuse(wire.CodeNoPermission, "don't get Admin token")
	case !wire.ValidPlatform(req.PlatformID):
		return nil, refuse(wire.CodeArgs, "platformID %d invalid", req.PlatformID)
	}
	t, err := a.Core.UserToken(req.UserID, req.PlatformID)
	if err != nil {
		return nil, err
	}
	return tokenResp{t, tokenExpiry}, nil
}

func (a *API) register(_ *http.Request, _ caller, body []byte) (any, error) {
	var req struct {
		Users []wire.UserInfo `json:"users"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	ids := make([]string, len(req.Users))
	for i, u := range req.Users {
		if !wire.LegalUserID(u.UserID) {
			return nil, refuse(wire.CodeArgs, wire.IllegalUserIDDetail)
		}
		ids[i] = u.UserID
	}
	if err := existsAs(a.Core.Register(ids), wire.CodeRegistered); err != nil {
		return nil, err
	}
	a.meta.registered(req.Users, time.Now().UnixMilli())
	return nil, nil
}

// accountCheck is /user/account_check (internal/rpc/user UserServer
// AccountCheck): repeated ids are refused with 1001.
func (a *API) accountCheck(_ *http.Request, _ caller, body []byte) (any, error) {
	var req struct {
		CheckUserIDs []string `json:"checkUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if len(slices.Compact(slices.Sorted(slices.Values(req.CheckUserIDs)))) != len(req.CheckUserIDs) {
		return nil, refuse(wire.CodeArgs, "userID repeated")
	}
	reg := a.Core.Registered(req.CheckUserIDs)
	type result struct {
		UserID        string `json:"userID"`
		AccountStatus int    `json:"accountStatus"`
	}
	out := make([]result, 0, len(req.CheckUserIDs))
	for _, id := range req.CheckUserIDs {
		st := 0
		if reg[id] {
			st = 1
		}
		out = append(out, result{id, st})
	}
	return map[string]any{"results": out}, nil
}

// importFriend is /friend/import_friend; each new friend is announced as
// an approved application (notify.go).
func (a *API) importFriend(r *http.Request, _ caller, body []byte) (any, error) {
	var req struct {
		OwnerUserID   string   `json:"ownerUserID"`
		FriendUserIDs []string `json:"friendUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if err := existsAs(a.Core.Befriend(req.OwnerUserID, req.FriendUserIDs), wire.CodeRelationship); err != nil {
		return nil, err
	}
	a.notifyFriendsImported(req.OwnerUserID, req.FriendUserIDs, r.Header.Get("operationID"))
	return nil, nil
}

// createGroup is /group/create_group (internal/rpc/group group.go
// CreateGroup): the admin creates a group for anyone, a user one it owns
// (authverify CheckAccessV3), with its own token.
func (a *API) createGroup(r *http.Request, who caller, body []byte) (any, error) {
	var req struct {
		OwnerUserID   string         `json:"ownerUserID"`
		MemberUserIDs []string       `json:"memberUserIDs"`
		AdminUserIDs  []string       `json:"adminUserIDs"`
		GroupInfo     wire.GroupInfo `json:"groupInfo"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if req.GroupInfo.GroupType != wire.GroupTypeWorking {
		return nil, refuse(wire.CodeArgs, "groupType %d not supported", req.GroupInfo.GroupType)
	}
	if req.OwnerUserID == "" {
		return nil, refuse(wire.CodeArgs, "no group owner")
	}
	if err := self(who, req.OwnerUserID); err != nil {
		return nil, err
	}
	members := append(append([]string(nil), req.AdminUserIDs...), req.MemberUserIDs...)
	id, err := a.Core.CreateGroup(req.GroupInfo.GroupID, req.OwnerUserID, members)
	if err != nil {
		return nil, existsAs(err, wire.CodeGroupExisted)
	}
	g := req.GroupInfo
	g.GroupID, g.OwnerUserID, g.CreatorUserID = id, req.OwnerUserID, who.user
	g.CreateTime = time.Now().UnixMilli()
	a.meta.created(&g, req.AdminUserIDs)
	info := a.groupInfo(id)
	a.notifyGroupCreated(who, info, r.Header.Get("operationID"))
	return map[string]any{"groupInfo": info}, nil
}

// invite is /group/invite_user_to_group (internal/rpc/group group.go
// InviteUserToGroup): the admin adds anyone; a user must be a member (else
// 1004, as the member lookup fails), and adds the invited directly unless
// the group needs verification for all (needVerification 1) and the user
// is neither its owner nor an admin: then the real server files join
// applications instead, which this server keeps none of (the invitation
// is answered and nobody joins).
func (a *API) invite(r *http.Request, who caller, body []byte) (any, error) {
	var req struct {
		GroupID        string   `json:"groupID"`
		InvitedUserIDs []string `json:"invitedUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	switch {
	case len(req.InvitedUserIDs) == 0:
		return nil, refuse(wire.CodeArgs, "user empty")
	case len(slices.Compact(slices.Sorted(slices.Values(req.InvitedUserIDs)))) != len(req.InvitedUserIDs):
		return nil, refuse(wire.CodeArgs, "userID duplicate")
	}
	members, err := a.Core.Members(req.GroupID)
	if err != nil {
		return nil, err
	}
	reg := a.Core.Registered(req.InvitedUserIDs)
	for _, id := range req.InvitedUserIDs {
		if !reg[id] {
			return nil, refuse(wire.CodeRecordNotFound, "user %s not found", id)
		}
	}
	if !who.admin {
		if !slices.Contains(members, who.user) {
			return nil, refuse(wire.CodeRecordNotFound, "%s is not a member of group %s", who.user, req.GroupID)
		}
		g, admins := a.meta.group(req.GroupID)
		owner, _ := a.Core.GroupOwner(req.GroupID)
		if g.NeedVerification == needVerificationAll && who.user != owner && !admins[who.user] {
			return nil, nil // join applications, not kept here
		}
	}
	invited := req.InvitedUserIDs
	if a.InviteSeqRefusal {
		invited = invited[:min(len(invited), inviteDBBatch)]
	}
	if err := a.Core.AddMembers(req.GroupID, invited); err != nil {
		return nil, err
	}
	a.notifyMembersInvited(who, req.GroupID, invited, r.Header.Get("operationID"))
	if a.InviteSeqRefusal {
		return nil, refuse(wire.CodeArgs, "maxSeq is invalid")
	}
	return nil, nil
}

// inviteDBBatch is how many invited members open-im-server v3.8 adds to
// the database at once (group.go InviteUserToGroup singleQuantity).
const inviteDBBatch = 50

// needVerificationAll is constant.AllNeedVerification: joining by
// application or by a member's invitation both need approval.
const needVerificationAll = 1
