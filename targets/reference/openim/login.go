package openim

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/gorilla/websocket"

	wire "github.com/imbench/imbench/wire/openim"
)

// loginArgs are a login's query parameters.
type loginArgs struct {
	user     string
	token    string
	platform int
	env      wire.Envelope
	gzip     bool
	msgResp  bool
}

func parseLogin(r *http.Request) (loginArgs, error) {
	q := r.URL.Query()
	a := loginArgs{user: q.Get("sendID"), token: q.Get("token"), msgResp: q.Get("isMsgResp") == "true"}
	bad := func(format string, v ...any) (loginArgs, error) {
		return a, refuse(wire.CodeConnArgs, format, v...)
	}
	if a.user == "" || a.token == "" {
		return bad("sendID and token are required")
	}
	p, err := strconv.Atoi(q.Get("platformID"))
	if err != nil {
		return bad("platformID %q is not a number", q.Get("platformID"))
	}
	a.platform = p
	if q.Get("operationID") == "" {
		return bad("operationID is empty")
	}
	if _, err := strconv.ParseBool(q.Get("isBackground")); err != nil {
		return bad("isBackground %q is not a bool", q.Get("isBackground"))
	}
	switch q.Get("sdkType") {
	case "", "go":
		a.env = wire.Gob
	case "js":
		a.env = wire.JSON
	default:
		return bad("sdkType %q not supported", q.Get("sdkType"))
	}
	a.gzip = q.Get("compression") == "gzip" || r.Header.Get("compression") == "gzip"
	return a, nil
}

type errBody struct {
	ErrCode int    `json:"errCode"`
	ErrMsg  string `json:"errMsg"`
	ErrDlt  string `json:"errDlt"`
}

// loginAnswer is the login's result as msggateway writes it: all zero for
// success.
func loginAnswer(r *refusal) []byte {
	var b errBody
	if r != nil {
		b = errBody{r.Code, r.Msg, r.Dlt}
	}
	body, _ := json.Marshal(b)
	return body
}

func (r *refusal) code() string { return strconv.Itoa(r.Code) }

// refuseHandshake answers a refused login: with isMsgResp=true in a text
// frame of an upgraded connection, else as the HTTP body.
func (g *Gateway) refuseHandshake(w http.ResponseWriter, r *http.Request, a loginArgs, ref *refusal) {
	g.Metrics.Login(ref.code())
	body := loginAnswer(ref)
	if a.msgResp {
		if ws, err := g.upgrader.Upgrade(w, r, nil); err == nil {
			ws.WriteMessage(websocket.TextMessage, body)
			ws.Close()
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
