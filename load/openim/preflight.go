package openim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// gatewayAnswers asks ws for a WebSocket upgrade as a client of a user no
// server knows, with a token no server issued: msggateway answers HTTP
// 200 with its {errCode, errMsg, errDlt} body (openim.md §1.3; 101 with
// isMsgResp on a later patch), where a port serving something else answers
// otherwise or not at all. No user logs in and nothing is stored.
func gatewayAnswers(ctx context.Context, ws string, platform int) error {
	u, err := url.Parse(ws)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	q := u.Query()
	q.Set("sendID", "imbench-preflight")
	q.Set("token", "imbench-preflight")
	q.Set("platformID", strconv.Itoa(platform))
	q.Set("operationID", "imbench-preflight")
	q.Set("isBackground", "false")
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "aW1iZW5jaC1wcmVmbGlnaHQ=")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("no HTTP answer to a WebSocket upgrade (%v)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct {
		ErrCode *int `json:"errCode"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &e) != nil || e.ErrCode == nil {
		return fmt.Errorf("a WebSocket upgrade was answered %s without msggateway's {\"errCode\": …} body", resp.Status)
	}
	return nil
}
