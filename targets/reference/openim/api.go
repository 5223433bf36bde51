package openim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	wire "github.com/imbench/imbench/wire/openim"
)

// API serves the openim-api routes imbench's setup uses. Like openim-api,
// every business route is a POST with a JSON body and an operationID header,
// and every answer is HTTP 200 with {errCode, errMsg, errDlt, data}.
type API struct {
	Core    *core.Core
	Metrics *Metrics
	mux     *http.ServeMux
}

// NewAPI builds the route table.
func NewAPI(c *core.Core, m *Metrics) *API {
	a := &API{Core: c, Metrics: m, mux: http.NewServeMux()}
	a.route("/auth/get_admin_token", false, a.adminToken)
	a.route("/auth/get_user_token", true, a.userToken)
	a.route("/user/user_register", true, a.register)
	a.route("/user/account_check", true, a.accountCheck)
	a.route("/friend/import_friend", true, a.importFriend)
	a.route("/group/create_group", true, a.createGroup)
	a.route("/group/invite_user_to_group", true, a.invite)
	a.route("/msg/get_server_time", true, func(*http.Request, []byte) (any, error) {
		return map[string]int64{"serverTime": time.Now().UnixMilli()}, nil
	})
	a.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	// openim-api lists each service's metrics targets here for Prometheus'
	// http_sd. This server is scraped directly, so it lists none: the
	// openim-* jobs of prometheus/prometheus.yml stay quiet against it.
	a.mux.HandleFunc("GET /prometheus_discovery/{service}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "[]\n")
	})
	return a
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

type handler func(r *http.Request, body []byte) (any, error)

func (a *API) route(path string, admin bool, h handler) {
	a.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		data, err := a.serve(r, admin, h)
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

func (a *API) serve(r *http.Request, admin bool, h handler) (any, error) {
	if r.Header.Get("operationID") == "" {
		return nil, refuse(wire.CodeArgs, "header must have operationID")
	}
	if admin {
		t := r.Header.Get("token")
		if t == "" {
			return nil, refuse(wire.CodeArgs, "header must have token")
		}
		if err := a.Core.RequireAdmin(t); err != nil {
			return nil, err
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, refuse(wire.CodeArgs, "%s", err)
	}
	return h(r, body)
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

func (a *API) adminToken(_ *http.Request, body []byte) (any, error) {
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

func (a *API) userToken(_ *http.Request, body []byte) (any, error) {
	var req struct {
		UserID     string `json:"userID"`
		PlatformID int    `json:"platformID"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if !wire.ValidPlatform(req.PlatformID) {
		return nil, refuse(wire.CodeArgs, "platformID %d invalid", req.PlatformID)
	}
	t, err := a.Core.UserToken(req.UserID, req.PlatformID)
	if err != nil {
		return nil, err
	}
	return tokenResp{t, tokenExpiry}, nil
}

func (a *API) register(_ *http.Request, body []byte) (any, error) {
	var req struct {
		Users []struct {
			UserID string `json:"userID"`
		} `json:"users"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	ids := make([]string, len(req.Users))
	for i, u := range req.Users {
		ids[i] = u.UserID
	}
	return nil, existsAs(a.Core.Register(ids), wire.CodeRegistered)
}

func (a *API) accountCheck(_ *http.Request, body []byte) (any, error) {
	var req struct {
		CheckUserIDs []string `json:"checkUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
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

func (a *API) importFriend(_ *http.Request, body []byte) (any, error) {
	var req struct {
		OwnerUserID   string   `json:"ownerUserID"`
		FriendUserIDs []string `json:"friendUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	return nil, existsAs(a.Core.Befriend(req.OwnerUserID, req.FriendUserIDs), wire.CodeRelationship)
}

func (a *API) createGroup(_ *http.Request, body []byte) (any, error) {
	var req struct {
		OwnerUserID   string   `json:"ownerUserID"`
		MemberUserIDs []string `json:"memberUserIDs"`
		AdminUserIDs  []string `json:"adminUserIDs"`
		GroupInfo     struct {
			GroupID   string `json:"groupID"`
			GroupName string `json:"groupName"`
			GroupType int    `json:"groupType"`
		} `json:"groupInfo"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if req.GroupInfo.GroupType != wire.GroupTypeWorking {
		return nil, refuse(wire.CodeArgs, "groupType %d not supported", req.GroupInfo.GroupType)
	}
	members := append(append([]string(nil), req.AdminUserIDs...), req.MemberUserIDs...)
	id, err := a.Core.CreateGroup(req.GroupInfo.GroupID, req.OwnerUserID, members)
	if err != nil {
		return nil, existsAs(err, wire.CodeGroupExisted)
	}
	return map[string]any{"groupInfo": map[string]any{"groupID": id, "groupName": req.GroupInfo.GroupName,
		"ownerUserID": req.OwnerUserID, "memberCount": len(members) + 1, "groupType": wire.GroupTypeWorking}}, nil
}

func (a *API) invite(_ *http.Request, body []byte) (any, error) {
	var req struct {
		GroupID        string   `json:"groupID"`
		InvitedUserIDs []string `json:"invitedUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	return nil, a.Core.AddMembers(req.GroupID, req.InvitedUserIDs)
}
