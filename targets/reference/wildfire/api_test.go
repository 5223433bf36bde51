package wildfire_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// Every admin route is a signed POST: missing 239, expired 243, wrong 244,
// each answered as the real server's check does, with the result filled
// with {code, msg} (wildfire.md §15); health needs none; an unknown path is
// an envelope, not a crash.
func TestAdminSignatures(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	body, _ := json.Marshal(wire.CreateUserReq{UserID: "u1", Name: "u1"})
	now := time.Now().UnixMilli()
	for _, k := range []struct {
		name   string
		header func(h http.Header)
		want   wire.ErrorCode
	}{
		{"missing", func(http.Header) {}, wire.CodeAPINotSigned},
		{"no sign", func(h http.Header) { h.Set("nonce", "1"); h.Set("timestamp", "1") }, wire.CodeAPINotSigned},
		{"expired", func(h http.Header) { wire.SetAdminHeaders(h, "1", tg.Secret, now-3*3600*1000) }, wire.CodeSignExpired},
		{"wrong secret", func(h http.Header) { wire.SetAdminHeaders(h, "1", "nope", now) }, wire.CodeAuthFailure},
		{"capitalised", func(h http.Header) {
			ts := strconv.FormatInt(now, 10)
			h.Set("Nonce", "7")
			h.Set("Timestamp", ts)
			h.Set("Sign", wire.AdminSign("7", tg.Secret, ts))
		}, wire.CodeSuccess},
	} {
		r, _ := http.NewRequest(http.MethodPost, tg.AdminURL+wire.PathUserCreate, bytes.NewReader(body))
		k.header(r.Header)
		var raw json.RawMessage
		do(t, r, &raw)
		var res wire.APIResult[json.RawMessage]
		if err := json.Unmarshal(raw, &res); err != nil || res.Err() != k.want {
			t.Errorf("%s: %s, want code %d", k.name, raw, k.want)
			continue
		}
		if k.want == wire.CodeSuccess {
			continue
		}
		msg := map[wire.ErrorCode]string{wire.CodeAPINotSigned: "api not signed or sign parameter not completion",
			wire.CodeSignExpired: "sign expired", wire.CodeAuthFailure: "auth failure"}[k.want]
		want := fmt.Sprintf(`{"code":%d,"msg":%q,"result":{"code":%d,"msg":%q}}`, k.want, msg, k.want, msg)
		if got := strings.TrimSpace(string(raw)); got != want {
			t.Errorf("%s: %s, want %s", k.name, got, want)
		}
	}

	r, _ := http.NewRequest(http.MethodGet, tg.AdminURL+wire.PathHealth, nil)
	var health wire.APIResult[[]wire.HealthNode]
	do(t, r, &health)
	if !health.OK() || len(health.Result) != 1 || health.Result[0].CPU.Cores < 1 || health.Result[0].Memory.Max <= 0 {
		t.Fatalf("health %+v", health)
	}
	resp, err := http.Post(tg.AdminURL+"/admin/nothing/here", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var unknown wire.APIResult[any]
	json.NewDecoder(resp.Body).Decode(&unknown)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || unknown.Err() != wire.CodeNotImplement {
		t.Fatalf("unknown path: HTTP %d %+v", resp.StatusCode, unknown)
	}
}

// user/create is idempotent; get_token keeps a clientId's secret, creates
// unknown users; groups, members and chatrooms; the online count.
func TestAdminRoutes(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	for range 2 {
		var res wire.APIResult[wire.CreateUserResult]
		post(t, tg, wire.PathUserCreate, wire.CreateUserReq{UserID: "u1", Name: "user one"}, &res)
		if !res.OK() || res.Result != (wire.CreateUserResult{UserID: "u1", Name: "user one"}) {
			t.Fatalf("create: %+v", res)
		}
	}
	var bad wire.APIResult[wire.CreateUserResult]
	if post(t, tg, wire.PathUserCreate, wire.CreateUserReq{UserID: "u9"}, &bad); bad.Err() != wire.CodeInvalidParameter {
		t.Fatalf("no name: %+v", bad)
	}
	var gen wire.APIResult[wire.CreateUserResult]
	if post(t, tg, wire.PathUserCreate, wire.CreateUserReq{Name: "anon"}, &gen); !gen.OK() || gen.Result.UserID == "" {
		t.Fatalf("generated id: %+v", gen)
	}

	a, b := getToken(t, tg, "u1", "c1", wire.PlatformLinux), getToken(t, tg, "u1", "c1", wire.PlatformLinux)
	if a.tok.Secret != b.tok.Secret || len(a.tok.Secret) != 36 || a.tok.DBSecret == "" {
		t.Fatalf("re-issued secret %q, first %q", b.tok.Secret, a.tok.Secret)
	}
	if uid, _, err := wire.ParseDESToken(a.tok.DESToken, wire.DefaultTokenKey); err != nil || uid != "u1" {
		t.Fatalf("DES token: %q %v", uid, err)
	}
	if c := getToken(t, tg, "u1", "c2", wire.PlatformOSX); c.tok.Secret == a.tok.Secret {
		t.Fatal("another clientId, the same secret")
	}
	getToken(t, tg, "fresh", "c3", wire.PlatformLinux)
	if !tg.Core.Registered([]string{"fresh"})["fresh"] {
		t.Fatal("get_token did not create its user")
	}

	createGroup(t, tg, "g1", "u1", "fresh", "u1", "newbie")
	if m, _ := tg.Core.Members("g1"); len(m) != 3 {
		t.Fatalf("members %v", m)
	}
	var dup wire.APIResult[wire.CreateGroupResult]
	post(t, tg, wire.PathGroupCreate, wire.CreateGroupReq{Operator: "u1", Group: wire.GroupJSON{GroupInfo: wire.GroupInfoJSON{TargetID: "g1", Name: "x"}}}, &dup)
	if dup.Err() != wire.CodeGroupAlreadyExist || dup.Msg != "group already exist" || dup.Result != (wire.CreateGroupResult{}) {
		t.Fatalf("existing group: %+v", dup)
	}
	var add wire.APIResult[any]
	post(t, tg, wire.PathGroupMemberAdd, wire.AddGroupMemberReq{Operator: "u1", GroupID: "g1", Members: []wire.GroupMemberJSON{{MemberID: "late"}}}, &add)
	if m, _ := tg.Core.Members("g1"); !add.OK() || len(m) != 4 {
		t.Fatalf("member add: %+v %v", add, m)
	}
	post(t, tg, wire.PathGroupMemberAdd, wire.AddGroupMemberReq{Operator: "u1", GroupID: "none", Members: []wire.GroupMemberJSON{{MemberID: "late"}}}, &add)
	if add.Err() != wire.CodeNotExist {
		t.Fatalf("member add to no group: %+v", add)
	}
	var room wire.APIResult[wire.CreateChatroomResult]
	if post(t, tg, wire.PathChatroomCreate, wire.CreateChatroomReq{ChatroomID: "r1", Title: "R1"}, &room); !room.OK() || room.Result.ChatroomID != "r1" {
		t.Fatalf("chatroom: %+v", room)
	}

	var count wire.APIResult[[]wire.OnlineCountNode]
	if post(t, tg, wire.PathOnlineCount, struct{}{}, &count); !count.OK() || len(count.Result) != 1 || count.Result[0] != (wire.OnlineCountNode{Node: 1}) {
		t.Fatalf("online count %+v", count)
	}
	online(t, tg, "u1")
	online(t, tg, "fresh")
	if post(t, tg, wire.PathOnlineCount, struct{}{}, &count); count.Result[0].Count != 2 {
		t.Fatalf("online count %+v", count)
	}
	if n := tg.Counter(t, "imbench_target_wildfire_mqtt_connections"); n != 2 {
		t.Fatalf("connections gauge %v", n)
	}
}

// The lookups answer as GetUserAction and GetGroupInfoAction: 251 with
// nothing to look up, 253 for what is unknown, destroyed or dismissed.
func TestAdminLookups(t *testing.T) {
	t.Parallel()
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	var res wire.APIResult[wire.CreateUserResult]
	post(t, tg, wire.PathUserCreate, wire.CreateUserReq{UserID: "u1", Name: "u1"}, &res)
	createGroup(t, tg, "g1", "u1", "u1")
	var user wire.APIResult[wire.UserInfo]
	if post(t, tg, wire.PathUserGetInfo, wire.GetUserInfoReq{UserID: "u1"}, &user); !user.OK() || user.Result.UserID != "u1" {
		t.Fatalf("get_info u1: %+v", user)
	}
	if post(t, tg, wire.PathUserGetInfo, wire.GetUserInfoReq{}, &user); user.Err() != wire.CodeInvalidParameter {
		t.Fatalf("get_info of nobody: %+v", user)
	}
	var group wire.APIResult[wire.GroupInfo]
	if post(t, tg, wire.PathGroupGetInfo, wire.GetGroupReq{GroupID: "g1"}, &group); !group.OK() || group.Result.Owner != "u1" || group.Result.TargetID != "g1" {
		t.Fatalf("group get_info: %+v", group)
	}
	var done wire.APIResult[any]
	post(t, tg, wire.PathGroupDismiss, wire.DismissGroupReq{Operator: "u1", GroupID: "g1"}, &done)
	post(t, tg, wire.PathUserDestroy, wire.DestroyUserReq{UserID: "u1"}, &done)
	if post(t, tg, wire.PathGroupGetInfo, wire.GetGroupReq{GroupID: "g1"}, &group); group.Err() != wire.CodeNotExist {
		t.Fatalf("a dismissed group: %+v", group)
	}
	if post(t, tg, wire.PathUserGetInfo, wire.GetUserInfoReq{UserID: "u1"}, &user); user.Err() != wire.CodeNotExist {
		t.Fatalf("a destroyed user: %+v", user)
	}
}
