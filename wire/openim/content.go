package openim

import (
	"bytes"
	"encoding/json"
)

var (
	contentPrefix = []byte(`{"content":"`)
	contentSuffix = []byte(`"}`)
)

// TextContent is the content of a text message, {"content":"<text>"}. The
// text must need no JSON escaping (benchmark texts never do).
func TextContent(text []byte) []byte {
	b := make([]byte, 0, len(contentPrefix)+len(text)+len(contentSuffix))
	b = append(b, contentPrefix...)
	b = append(b, text...)
	return append(b, contentSuffix...)
}

// ContentText extracts the text of a text message's content; content that
// is not such JSON comes back as it is.
func ContentText(content []byte) []byte {
	if len(content) >= len(contentPrefix)+len(contentSuffix) && // {"content":"} has both, overlapping
		bytes.HasPrefix(content, contentPrefix) && bytes.HasSuffix(content, contentSuffix) {
		t := content[len(contentPrefix) : len(content)-len(contentSuffix)]
		if bytes.IndexByte(t, '\\') < 0 && bytes.IndexByte(t, '"') < 0 {
			return t
		}
	}
	var e struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(content, &e) == nil {
		return []byte(e.Content)
	}
	return content
}

// LoginAnswer is msggateway's answer to a login: a refusal (an HTTP 200 body
// or, with isMsgResp=true, a text frame) or, as a text frame, the success
// {"errCode":0,...}.
type LoginAnswer struct {
	ErrCode int    `json:"errCode"`
	ErrMsg  string `json:"errMsg"`
	ErrDlt  string `json:"errDlt"`
}

// ParseLoginAnswer reads a login answer; ok is false when body is not one.
func ParseLoginAnswer(body []byte) (a LoginAnswer, ok bool) {
	var r struct {
		ErrCode *int   `json:"errCode"`
		ErrMsg  string `json:"errMsg"`
		ErrDlt  string `json:"errDlt"`
	}
	if json.Unmarshal(body, &r) != nil || r.ErrCode == nil {
		return a, false
	}
	return LoginAnswer{ErrCode: *r.ErrCode, ErrMsg: r.ErrMsg, ErrDlt: r.ErrDlt}, true
}
