package wukongim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// API is a client of WuKongIM's HTTP API.
type API struct {
	Base  string
	Token string // managerToken: sent as the "token" header when set
	HTTP  *http.Client
}

func newAPI(cfg Config) *API {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Parallel * 2
	return &API{Base: cfg.APIURL, Token: cfg.Token, HTTP: &http.Client{Timeout: 2 * cfg.Timeout, Transport: tr}}
}

// APIError is a refusal of the API: HTTP status and the body's status and msg.
type APIError struct {
	Path   string
	HTTP   int
	Status int
	Msg    string
}

func (e *APIError) Error() string {
	if e.HTTP == http.StatusUnauthorized {
		return fmt.Sprintf("WuKongIM API %s: 401, the manager token (IM_SECRET) was refused", e.Path)
	}
	return fmt.Sprintf("WuKongIM API %s: HTTP %d status %d %s", e.Path, e.HTTP, e.Status, e.Msg)
}

// call sends body (nil: a GET) and decodes the answer into out (nil: an
// envelope whose status must be 200).
func (a *API) call(ctx context.Context, path string, body, out any) error {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		method, rd = http.MethodPost, bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.Base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if a.Token != "" {
		req.Header.Set("token", a.Token)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	var env wire.Result
	_ = json.Unmarshal(raw, &env)
	if resp.StatusCode != http.StatusOK || (out == nil && !env.OK()) || (env.Status != 0 && !env.OK()) {
		return &APIError{Path: path, HTTP: resp.StatusCode, Status: env.Status, Msg: env.Msg}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("WuKongIM API %s: %w", path, err)
	}
	return nil
}

// Health proves the API answers and accepts the manager token.
func (a *API) Health(ctx context.Context) error {
	var h wire.HealthResp
	err := a.call(ctx, wire.PathHealth, nil, &h)
	if e, ok := err.(*APIError); ok && e.HTTP == http.StatusUnauthorized {
		return fmt.Errorf("WuKongIM API at %s rejected the manager token (IM_SECRET)", a.Base)
	}
	if err != nil {
		return fmt.Errorf("WuKongIM API at %s is not reachable: %w", a.Base, err)
	}
	if h.Status != "ok" {
		return fmt.Errorf("WuKongIM API at %s: health %q", a.Base, h.Status)
	}
	return nil
}

// SetToken creates user uid (if absent) with token for a device flag.
func (a *API) SetToken(ctx context.Context, uid, token string, deviceFlag uint8) error {
	return a.call(ctx, wire.PathUserToken, wire.UserTokenReq{UID: uid, Token: token, DeviceFlag: deviceFlag}, nil)
}

// CreateGroup creates group channel id with its first subscribers.
func (a *API) CreateGroup(ctx context.Context, id string, subscribers []string) error {
	return a.call(ctx, wire.PathChannel, wire.ChannelCreateReq{ChannelID: id, ChannelType: wire.ChannelGroup, Subscribers: subscribers}, nil)
}

// AddSubscribers adds members to a channel.
func (a *API) AddSubscribers(ctx context.Context, id string, channelType uint8, subscribers []string) error {
	return a.call(ctx, wire.PathSubscriberAdd, wire.SubscriberAddReq{ChannelID: id, ChannelType: channelType, Subscribers: subscribers}, nil)
}

// Sync pulls a channel's messages as login sees them.
func (a *API) Sync(ctx context.Context, req wire.ChannelMessageSyncReq) (wire.ChannelMessageSyncResp, error) {
	var resp wire.ChannelMessageSyncResp
	err := a.call(ctx, wire.PathChannelMessageSync, req, &resp)
	return resp, err
}
