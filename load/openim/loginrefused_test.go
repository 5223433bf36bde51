package openim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/imbench/imbench/load/engine"
	"github.com/imbench/imbench/load/openim"
)

// Every answer refusing a login (a token malformed, unknown, another
// user's, kicked by a newer login), as an HTTP body or as the isMsgResp text
// frame, is a refusal to the engine: counted as refused, never retried.
func TestLoginRefusalsAreRefusedToTheEngine(t *testing.T) {
	for _, msgResp := range []bool{false, true} {
		name := map[bool]string{false: "http body", true: "text frame"}[msgResp]
		t.Run(name, func(t *testing.T) {
			tg, d := setup(t, func(c *openim.Config) { c.MsgResp = msgResp })
			ctx := context.Background()
			other, err := d.Token(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			kicked, err := d.Token(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			c, err := d.Connect(ctx, 0, newRecorder())
			if err != nil {
				t.Fatal(err)
			}
			defer closeConn(t, c)
			waitCounter(t, tg, "imbench_target_ws_logins_total", 1)
			d2, _ := openim.New(openim.Config{APIURL: tg.APIURL, WSURL: tg.WSURL, Secret: tg.Secret, MsgResp: msgResp}, tinyPlan(t))
			c2, err := d2.Connect(ctx, 0, newRecorder())
			if err != nil {
				t.Fatal(err)
			}
			defer closeConn(t, c2)
			for _, tc := range []struct {
				what, token string
				code        int
			}{{"malformed", "not-a-token", 1503}, {"unknown", strings.Repeat("ab", 24), 1507},
				{"another user's", other, 1502}, {"kicked", kicked, 1506}} {
				_, err := d.DialToken(ctx, 0, tc.token, newRecorder())
				var le *openim.LoginError
				if !errors.As(err, &le) || le.Code != tc.code {
					t.Fatalf("%s token: %v, want errCode %d", tc.what, err, tc.code)
				}
				if !errors.Is(err, engine.ErrLoginRefused) || engine.CauseOf(err) != engine.LoginRefused {
					t.Errorf("%s token: %v is cause %s, want refused", tc.what, err, engine.CauseOf(err))
				}
			}
		})
	}
}

// The server's own failure and a full gateway may let the login in later:
// they are not refusals, so the engine retries them.
func TestTransientLoginErrorsAreRetried(t *testing.T) {
	for _, code := range []int{500, 1601} {
		if err := error(&openim.LoginError{User: "u", Code: code}); errors.Is(err, engine.ErrLoginRefused) {
			t.Errorf("errCode %d is a refusal to the engine", code)
		}
	}
	if err := error(&openim.LoginError{User: "u", Code: 1507}); !errors.Is(err, engine.ErrLoginRefused) {
		t.Error("errCode 1507 is not a refusal")
	}
}
