package wildfire_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/wildfire"
	"github.com/imbench/imbench/targets/reference/core"
	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wildfire"
)

// What a refused admin call must say: the code, the server's msg and what
// to check, on one line.
var refusals = []struct {
	code wire.ErrorCode
	msg  string   // the real server's msg (ErrorCode.java)
	says []string // in the error, besides the code and msg
}{
	{wire.CodeAuthFailure, "auth failure", []string{"check IM_SECRET (http.admin.secret_key)"}},
	{wire.CodeSignExpired, "sign expired", []string{"clock", "http.admin.no_check_time"}},
	{wire.CodeAPINotSigned, "api not signed or sign parameter not completion", []string{"signature", "nonce, timestamp and sign headers"}},
	{wire.CodeOverFrequency, "over frequency", []string{"client.request_rate_limit", "http.admin.rate_limit"}},
}

// The real server answers a request its admin check refuses with the code
// twice: in the envelope and in a result object (wildfire.md §15). Every
// admin call reads the code first and says what to check, whatever type
// its result would have had; the secret never shows.
func TestAdminRefusalsAreOneLine(t *testing.T) {
	const secret = "s3cret-never-shown"
	for _, r := range refusals {
		body := fmt.Sprintf(`{"code":%d,"msg":%q,"result":{"code":%d,"msg":%q}}`, r.code, r.msg, r.code, r.msg)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprint(w, body)
		}))
		a := &wildfire.Admin{Base: srv.URL, Secret: secret, HTTP: srv.Client()}
		ctx := context.Background()
		for name, call := range map[string]func() error{
			"user/create":      func() error { return a.CreateUser(ctx, "u1") },
			"get_token":        func() error { _, err := a.GetToken(ctx, "u1", "c_u1", 7); return err },
			"group/create":     func() error { return a.CreateGroup(ctx, "g1", []string{"u1", "u2"}) },
			"group/member/add": func() error { return a.AddMembers(ctx, "g1", "u1", []string{"u3"}) },
			"chatroom/create":  func() error { return a.CreateChatroom(ctx, "r1") },
			"online_count":     func() error { _, err := a.OnlineCount(ctx); return err },
			"health":           func() error { return a.Health(ctx) },
		} {
			err := call()
			var ae *wildfire.APIError
			if !errors.As(err, &ae) || ae.Code != r.code || ae.Msg != r.msg {
				t.Errorf("code %d, %s: %v, want an APIError with the code and msg", r.code, name, err)
				continue
			}
			s := err.Error()
			want := append([]string{fmt.Sprintf("code %d %q", r.code, r.msg)}, r.says...)
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("code %d, %s: %q lacks %q", r.code, name, s, w)
				}
			}
			if strings.ContainsAny(s, "\n\r") || strings.Contains(s, secret) || strings.Contains(s, "json:") {
				t.Errorf("code %d, %s: %q: want one line, no secret, no decoder noise", r.code, name, s)
			}
		}
		srv.Close()
	}
}

// The envelope's code decides: an answer without one is not Wildfire's; a
// success's result is decoded; a refusal without a result, or with one of
// any shape, is the code; a success whose result has the wrong shape says
// so in one line.
func TestAdminEnvelopeDecoding(t *testing.T) {
	answer := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, answer) }))
	defer srv.Close()
	a := &wildfire.Admin{Base: srv.URL, Secret: "x", HTTP: srv.Client()}
	ctx := context.Background()
	for _, c := range []struct {
		answer string
		count  int
		code   wire.ErrorCode // of an APIError
		says   string         // else in the error ("" none)
	}{
		{answer: `{"code":0,"msg":"success","result":[{"node":1,"count":3},{"node":2,"count":4}]}`, count: 7},
		{answer: `{"code":0,"msg":"success"}`},
		{answer: `{"code":0,"msg":"success","result":null}`},
		{answer: `{"code":4,"msg":"server error"}`, code: wire.CodeServerError},
		{answer: `{"code":243,"msg":"sign expired","result":{"code":243,"msg":"sign expired"}}`, code: wire.CodeSignExpired},
		{answer: `{"code":250,"msg":"over frequency","result":"anything"}`, code: wire.CodeOverFrequency},
		{answer: `{"code":0,"msg":"success","result":{"code":244}}`, says: "code 0 but the result is not a []wildfire.OnlineCountNode"},
		{answer: `{"msg":"hello"}`, says: "not a {code, msg, result} envelope"},
		{answer: `<html>404</html>`, says: "not a {code, msg, result} envelope"},
	} {
		answer = c.answer
		n, err := a.OnlineCount(ctx)
		var ae *wildfire.APIError
		switch {
		case c.code != 0:
			if !errors.As(err, &ae) || ae.Code != c.code {
				t.Errorf("%s: %v, want code %d", c.answer, err, c.code)
			}
		case c.says != "":
			if err == nil || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want one line with %q", c.answer, err, c.says)
			}
		case err != nil || n != c.count:
			t.Errorf("%s: %d, %v, want %d", c.answer, n, err, c.count)
		}
	}
}

// Against the reference target's Wildfire front end, started with one
// secret and called with another: preflight and setup both stop in one
// line naming IM_SECRET and code 244, before any user exists.
func TestWrongSecretAgainstTheReference(t *testing.T) {
	tg := reftest.StartWildfire(t, core.Faults{}, reftest.WFOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	check := func(what string, err error) {
		t.Helper()
		var ae *wildfire.APIError
		if !errors.As(err, &ae) || ae.Code != wire.CodeAuthFailure || ae.Msg != "auth failure" {
			t.Fatalf("%s: %v, want code 244", what, err)
		}
		s := err.Error()
		if strings.Contains(s, "\n") || !strings.Contains(s, "IM_SECRET") || !strings.Contains(s, "244") ||
			strings.Contains(s, "json") || strings.Contains(s, tg.Secret) {
			t.Fatalf("%s: %q, want one line with IM_SECRET and 244", what, s)
		}
		t.Logf("%s: %s", what, s)
	}

	wrong := engine.Target{Name: "reference", System: "wildfire",
		Endpoints: map[string]string{wildfire.EndpointAdmin: tg.AdminURL, wildfire.EndpointMQTT: tg.MQTTAddr},
		Options:   map[string]any{"secret": "not-" + tg.Secret}}
	_, proto, err := wrong.Open()
	if err != nil {
		t.Fatal(err)
	}
	err = proto.Preflight(ctx)
	check("preflight", err)
	if want := `Wildfire admin API /admin/user/online_count: code 244 "auth failure": the server refused the signature: check IM_SECRET (http.admin.secret_key)`; err.Error() != want {
		t.Fatalf("preflight said\n%s\nwant\n%s", err, want)
	}

	p := testPlan(t, "wrongsecret", `{"kind":"groups","groups":1,"members":3,"allOnline":true,"rate":1,"messages":1}`)
	d, err := wildfire.New(wildfire.Config{AdminURL: tg.AdminURL, MQTT: tg.MQTTAddr, Secret: "not-" + tg.Secret, Timeout: 5 * time.Second}, p)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := d.Setup(ctx, func(string) {})
	check("setup", err)
	if rep.Registered != 0 || tg.Core.Registered([]string{p.UserID(0)})[p.UserID(0)] {
		t.Fatalf("setup with a wrong secret registered %d users", rep.Registered)
	}
}
