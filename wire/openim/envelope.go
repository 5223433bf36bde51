package openim

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
)

// Req is the client→server envelope. Field names are what the server's gob
// decoder matches on; the JSON tags are the sdkType=js wire names.
type Req struct {
	ReqIdentifier int32  `json:"reqIdentifier"`
	Token         string `json:"token"`
	SendID        string `json:"sendID"`
	OperationID   string `json:"operationID"`
	MsgIncr       string `json:"msgIncr"`
	Data          []byte `json:"data"`
}

// Resp is the server→client envelope.
type Resp struct {
	ReqIdentifier int32  `json:"reqIdentifier"`
	MsgIncr       string `json:"msgIncr"`
	OperationID   string `json:"operationID"`
	ErrCode       int    `json:"errCode"`
	ErrMsg        string `json:"errMsg"`
	Data          []byte `json:"data"`
}

// Envelope selects the envelope encoding: the query parameter sdkType=go
// (gob, the Go SDK's default) or sdkType=js (JSON).
type Envelope string

const (
	Gob  Envelope = "gob"
	JSON Envelope = "json"
)

// ParseEnvelope validates a user-supplied envelope name.
func ParseEnvelope(s string) (Envelope, error) {
	switch Envelope(s) {
	case Gob, JSON:
		return Envelope(s), nil
	case "go":
		return Gob, nil
	case "js":
		return JSON, nil
	}
	return "", fmt.Errorf("unknown OpenIM envelope %q (want gob or json)", s)
}

// SDKType is the value of the sdkType query parameter for this envelope.
func (e Envelope) SDKType() string {
	if e == JSON {
		return "js"
	}
	return "go"
}

// AppendReq appends one encoded request frame (before compression).
func (e Envelope) AppendReq(dst []byte, r *Req) ([]byte, error) {
	if e == JSON {
		b, err := json.Marshal(r)
		return append(dst, b...), err
	}
	return appendGobReq(dst, r), nil
}

// DecodeResp decodes one response frame (after decompression).
func (e Envelope) DecodeResp(b []byte, r *Resp) error {
	if e == JSON {
		*r = Resp{}
		return json.Unmarshal(b, r)
	}
	return decodeGobResp(b, r)
}

// DecodeReq decodes a request frame, as the server does: a fresh gob decoder
// per frame, or encoding/json. Used by the reference target.
func (e Envelope) DecodeReq(b []byte, r *Req) error {
	*r = Req{}
	if e == JSON {
		return json.Unmarshal(b, r)
	}
	return gob.NewDecoder(bytes.NewReader(b)).Decode(r)
}

// EncodeResp encodes a response frame as the server does: a fresh gob encoder
// per frame (so every frame carries its type definition), or encoding/json.
func (e Envelope) EncodeResp(r *Resp) ([]byte, error) {
	if e == JSON {
		return json.Marshal(r)
	}
	var buf bytes.Buffer
	err := gob.NewEncoder(&buf).Encode(r)
	return buf.Bytes(), err
}
