package openim

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

// API serves the openim-api routes imbench's setup uses. Like openim-api,
// every business route is a POST with a JSON body and an operationID header,
// and every answer is HTTP 200 with {errCode, errMsg, errDlt, data}.
type API struct {
	Core    *core.Core
	Metrics *core.Metrics
	mux     *http.ServeMux
}

// NewAPI builds the route table.
func NewAPI(c *core.Core, m *core.Metrics) *API {
	a := &API{Core: c, Metrics: m, mux: http.NewServeMux()}
	a.route("/auth/get_admin_token", false, a.adminToken)
	a.route("/auth/get_user_token", true, a.userToken)
	a.route("/user/user_register", true, a.register)
	a.route("/user/account_check", true, a.accountCheck)
	a.route("/friend/import_friend", true, a.importFriend)
	a.route("/group/create_group", true, a.createGroup)
	a.route("/group/invite_user_to_group", true, a.invite)
	a.route("/msg/get_server_time", true, func(*http.Request, []byte) (any, *core.Error) {
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

type handler func(r *http.Request, body []byte) (any, *core.Error)

func (a *API) route(path string, admin bool, h handler) {
	a.mux.HandleFunc("POST "+path, func(w http.ResponseWriter, r *http.Request) {
		data, cerr := a.serve(r, admin, h)
		env := map[string]any{"errCode": 0, "errMsg": "", "errDlt": ""}
		if cerr != nil {
			env["errCode"], env["errMsg"], env["errDlt"] = cerr.Code, cerr.Msg, cerr.Dlt
		} else if data != nil {
			env["data"] = data
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(env)
		a.Metrics.APICount.WithLabelValues(path, r.Method, strconv.Itoa(env["errCode"].(int))).Inc()
		a.Metrics.HTTPCount.WithLabelValues(path, r.Method, "200").Inc()
	})
}

func (a *API) serve(r *http.Request, admin bool, h handler) (any, *core.Error) {
	if r.Header.Get("operationID") == "" {
		return nil, &core.Error{Code: core.CodeArgs, Msg: "ArgsError", Dlt: "header must have operationID"}
	}
	if admin {
		if err := a.Core.RequireAdmin(r.Header.Get("token")); err != nil {
			return nil, err
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return nil, &core.Error{Code: core.CodeArgs, Msg: "ArgsError", Dlt: err.Error()}
	}
	return h(r, body)
}

func decode(body []byte, v any) *core.Error {
	if err := json.Unmarshal(body, v); err != nil {
		return &core.Error{Code: core.CodeArgs, Msg: "ArgsError", Dlt: err.Error()}
	}
	return nil
}

type tokenResp struct {
	Token             string `json:"token"`
	ExpireTimeSeconds int64  `json:"expireTimeSeconds"`
}

const tokenExpiry = 90 * 24 * 3600 // share.yml tokenPolicy.expire: 90 days

func (a *API) adminToken(_ *http.Request, body []byte) (any, *core.Error) {
	var req struct {
		Secret string `json:"secret"`
		UserID string `json:"userID"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	t, err := a.Core.AdminToken(req.Secret, req.UserID)
	if err != nil {
		return nil, err
	}
	return tokenResp{t, tokenExpiry}, nil
}

func (a *API) userToken(_ *http.Request, body []byte) (any, *core.Error) {
	var req struct {
		UserID     string `json:"userID"`
		PlatformID int    `json:"platformID"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	t, err := a.Core.UserToken(req.UserID, req.PlatformID)
	if err != nil {
		return nil, err
	}
	return tokenResp{t, tokenExpiry}, nil
}

func (a *API) register(_ *http.Request, body []byte) (any, *core.Error) {
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
	return nil, a.Core.Register(ids)
}

func (a *API) accountCheck(_ *http.Request, body []byte) (any, *core.Error) {
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

func (a *API) importFriend(_ *http.Request, body []byte) (any, *core.Error) {
	var req struct {
		OwnerUserID   string   `json:"ownerUserID"`
		FriendUserIDs []string `json:"friendUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	return nil, a.Core.ImportFriends(req.OwnerUserID, req.FriendUserIDs)
}

func (a *API) createGroup(_ *http.Request, body []byte) (any, *core.Error) {
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
	members := append(append([]string(nil), req.AdminUserIDs...), req.MemberUserIDs...)
	id, err := a.Core.CreateGroup(req.GroupInfo.GroupID, req.OwnerUserID, members, req.GroupInfo.GroupType)
	if err != nil {
		return nil, err
	}
	return map[string]any{"groupInfo": map[string]any{"groupID": id, "groupName": req.GroupInfo.GroupName,
		"ownerUserID": req.OwnerUserID, "memberCount": len(members) + 1, "groupType": 2}}, nil
}

func (a *API) invite(_ *http.Request, body []byte) (any, *core.Error) {
	var req struct {
		GroupID        string   `json:"groupID"`
		InvitedUserIDs []string `json:"invitedUserIDs"`
	}
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	return nil, a.Core.Invite(req.GroupID, req.InvitedUserIDs)
}
