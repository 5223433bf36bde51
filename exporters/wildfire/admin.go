package wildfire

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// maxAnswer bounds what the exporter reads of one admin answer.
const maxAnswer = 1 << 20

// Admin reads the two answers a community Wildfire server gives about
// itself (../shared/protocols/wildfire.md §4, §11): GET /admin/health,
// unsigned, and POST /admin/user/online_count, signed with the admin
// secret (http.admin.secret_key). The secret only ever goes into the
// signature; Admin never logs, exports or sends it.
type Admin struct {
	URL       string // the admin API, e.g. http://127.0.0.1:18080
	secret    string
	secretEnv string // where the secret came from, for messages
	client    *http.Client
	now       func() time.Time
}

// NewAdmin returns a client of the admin API at url, signing with secret,
// which came from the environment variable secretEnv (named in errors).
func NewAdmin(url, secret, secretEnv string) *Admin {
	return &Admin{URL: strings.TrimRight(url, "/"), secret: secret, secretEnv: secretEnv,
		client: &http.Client{}, now: time.Now}
}

// APIError is an answer whose envelope code is not success.
type APIError struct {
	Path      string
	Code      wire.ErrorCode
	SecretEnv string
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s answered code %d (%s)", e.Path, int(e.Code), e.Code)
	switch e.Code {
	case wire.CodeAuthFailure:
		msg += fmt.Sprintf(": the server refused the signature, so %s is not its http.admin.secret_key", e.SecretEnv)
	case wire.CodeSignExpired:
		msg += ": the signature's timestamp is over 2 h older than the server's clock; fix the clocks (or set http.admin.no_check_time true)"
	case wire.CodeAPINotSigned:
		msg += ": the server saw no signature headers (nonce, timestamp, sign); is a proxy dropping them?"
	case wire.CodeOverFrequency:
		msg += ": the admin API's rate limit (http.admin.rate_limit) refused it"
	}
	return msg
}

// Health asks GET /admin/health for every node's CPU, JVM heap and disk.
// 1.2.4 answers a list of nodes; older servers an object keyed by node
// ("node1"): both are read.
func (a *Admin) Health(ctx context.Context) ([]wire.HealthNode, error) {
	raw, err := a.call(ctx, http.MethodGet, wire.PathHealth, false)
	if err != nil {
		return nil, err
	}
	var list []wire.HealthNode
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var byNode map[string]wire.HealthNode
	if err := json.Unmarshal(raw, &byNode); err != nil {
		return nil, fmt.Errorf("%s: result is neither a list nor an object of nodes: %.80s", wire.PathHealth, raw)
	}
	for name, n := range byNode {
		if n.Node == "" {
			n.Node = strings.TrimPrefix(name, "node")
		}
		list = append(list, n)
	}
	return list, nil
}

// OnlineCount asks the signed POST /admin/user/online_count for the users
// online per node.
func (a *Admin) OnlineCount(ctx context.Context) ([]wire.OnlineCountNode, error) {
	raw, err := a.call(ctx, http.MethodPost, wire.PathOnlineCount, true)
	if err != nil {
		return nil, err
	}
	var nodes []wire.OnlineCountNode
	if err := json.Unmarshal(raw, &nodes); err != nil {
		return nil, fmt.Errorf("%s: result is not a list of nodes: %.80s", wire.PathOnlineCount, raw)
	}
	return nodes, nil
}

// call does one request and returns the envelope's result.
func (a *Admin) call(ctx context.Context, method, path string, signed bool) (json.RawMessage, error) {
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader([]byte("{}"))
	}
	req, err := http.NewRequestWithContext(ctx, method, a.URL+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	if signed {
		wire.SetAdminHeaders(req.Header, nonce(), a.secret, a.now().UnixMilli())
	}
	resp, err := a.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s %s%s: no answer within the scrape's timeout", method, a.URL, path)
		}
		return nil, fmt.Errorf("%s %s%s: the admin API is not reachable: %w", method, a.URL, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: HTTP %d: is %s Wildfire's admin port (http.admin.port)?", method, path, resp.StatusCode, a.URL)
	}
	var env wire.APIResult[json.RawMessage]
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("%s %s: not an admin API answer: %.80s", method, path, raw)
	}
	if !env.OK() {
		return nil, &APIError{Path: path, Code: env.Err(), SecretEnv: a.secretEnv}
	}
	return env.Result, nil
}

// nonce is a fresh random nonce for one signed request.
func nonce() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return hex.EncodeToString(b[:])
}
