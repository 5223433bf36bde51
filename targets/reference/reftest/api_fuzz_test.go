package reftest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/openim"
	"github.com/imbench/imbench/targets/reference/wildfire"
	"github.com/imbench/imbench/targets/reference/wukongim"
	oiwire "github.com/imbench/imbench/wire/openim"
	wfwire "github.com/imbench/imbench/wire/wildfire"
)

// FuzzAPI posts any body to every route of the three REST APIs one core
// serves (OpenIM's, WuKongIM's, Wildfire's admin API), with and without
// credentials: no panic (the handlers are called directly, so nothing
// recovers one); no 5xx; every answer but a bare 401 or 405 is JSON.
func FuzzAPI(f *testing.F) {
	lg := slog.New(slog.DiscardHandler)
	m := core.NewMetrics()
	c, err := core.New(core.Config{Secret: "test-secret", Log: lg}, m)
	if err != nil {
		f.Fatal(err)
	}
	apis := []struct {
		h      http.Handler
		routes []string
		auth   func(h http.Header)
	}{
		{openim.New(m, lg).API(c), oiRoutes, func(h http.Header) {
			tk, _ := c.AdminToken("test-secret", "imAdmin", oiwire.PlatformAdmin)
			h.Set("operationID", "fuzz")
			h.Set("token", tk)
		}},
		{wukongim.New(m, lg).API(c), wkRoutes, func(h http.Header) { h.Set("token", "test-secret") }},
		{wildfire.New(c, m, lg).API(), wfRoutes, func(h http.Header) {
			wfwire.SetAdminHeaders(h, strconv.FormatInt(time.Now().UnixNano(), 36), "test-secret", time.Now().UnixMilli())
		}},
	}
	bodies := [][]string{
		{`{"secret":"test-secret","userID":"imAdmin"}`, `{"userID":"a","platformID":1}`,
			`{"users":[{"userID":"a","nickname":"a"},{"userID":"b","nickname":"b"}]}`, `{"checkUserIDs":["a","zz"]}`,
			`{"ownerUserID":"a","friendUserIDs":["b"]}`,
			`{"memberUserIDs":["b"],"groupInfo":{"groupID":"g","groupName":"g","groupType":2},"ownerUserID":"a"}`,
			`{"groupID":"g","invitedUserIDs":["a"],"reason":""}`, `{}`,
			`{"sendID":"a","recvID":"b","senderPlatformID":1,"content":{"content":"hi"},"contentType":101,"sessionType":1}`, `{}`},
		{`{"uid":"a","token":"t","device_flag":0,"device_level":1}`, `{"channel_id":"g","channel_type":2,"subscribers":["a","b"]}`,
			`{"channel_id":"g","channel_type":2,"subscribers":["b"]}`, `{"channel_id":"g","channel_type":2,"subscribers":["b"]}`,
			`{"header":{"red_dot":1},"from_uid":"a","channel_id":"b","channel_type":1,"payload":"aGk="}`,
			`{"login_uid":"a","channel_id":"b","channel_type":1,"start_message_seq":0,"end_message_seq":0,"limit":10,"pull_mode":1}`,
			`{"channel_id":"b","channel_type":1}`, ``, ``, ``},
		{`{"userId":"a","name":"a"}`, `{"userId":"a","clientId":"c","platform":1}`, `{}`,
			`{"group":{"group_info":{"target_id":"g","name":"g","type":2},"members":[{"member_id":"a","type":0}]},"operator":"a"}`,
			`{"group_id":"g","group_member":[{"member_id":"b","type":0}],"operator":"a"}`, `{"chatroomId":"r","title":"r"}`,
			`{"sender":"a","conv":{"type":0,"target":"b","line":0},"payload":{"type":1,"searchableContent":"hi"}}`, `{}`},
	}
	for i, a := range apis {
		for j := range a.routes {
			if j < len(bodies[i]) && bodies[i][j] != "" {
				f.Add(uint8(i), uint8(j), []byte(bodies[i][j]), true)
			}
		}
	}
	f.Add(uint8(0), uint8(1), []byte(`{"userID":"a","platformID":1e400}`), true)
	f.Add(uint8(1), uint8(5), []byte(`{"login_uid":"a","channel_id":"b","channel_type":1,"start_message_seq":18446744073709551615,"limit":-1}`), true)
	f.Add(uint8(2), uint8(0), []byte(`[[[[[[[[[[`), false)
	f.Fuzz(func(t *testing.T, which, route uint8, body []byte, auth bool) {
		a := apis[int(which)%len(apis)]
		path := a.routes[int(route)%len(a.routes)]
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			req := httptest.NewRequest(method, path, bytes.NewReader(body))
			if auth {
				a.auth(req.Header)
			}
			rec := httptest.NewRecorder()
			a.h.ServeHTTP(rec, req)
			switch code := rec.Code; {
			case code >= 500:
				t.Fatalf("%s %s: %d %s", method, path, code, rec.Body)
			case code == http.StatusUnauthorized || code == http.StatusMethodNotAllowed:
			case !json.Valid(rec.Body.Bytes()):
				t.Fatalf("%s %s: %d, not JSON: %q", method, path, code, rec.Body)
			}
		}
	})
}
