package wildfire

import (
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"strconv"
)

// Admin API signature headers (§4).
const (
	HeaderNonce     = "nonce"
	HeaderTimestamp = "timestamp"
	HeaderSign      = "sign"
)

// AdminSignMaxAgeMs is how old a signature's timestamp may be (2 h, past
// only) unless the server runs with http.admin.no_check_time true (§4).
const AdminSignMaxAgeMs = 2 * 60 * 60 * 1000

// AdminSign is the admin API signature: lowercase hex
// sha1(nonce + "|" + secret + "|" + timestamp), timestamp being the header's
// text (ms since the epoch) (§4).
func AdminSign(nonce, secret, timestamp string) string {
	var buf [128]byte
	b := append(buf[:0], nonce...)
	b = append(b, '|')
	b = append(b, secret...)
	b = append(b, '|')
	b = append(b, timestamp...)
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])
}

// SetAdminHeaders sets nonce, timestamp (timestampMs) and sign on h.
func SetAdminHeaders(h http.Header, nonce, secret string, timestampMs int64) {
	ts := strconv.FormatInt(timestampMs, 10)
	h[HeaderNonce] = []string{nonce}
	h[HeaderTimestamp] = []string{ts}
	h[HeaderSign] = []string{AdminSign(nonce, secret, ts)}
}

// CheckAdminSign is the server's check of the three header values, in its
// order (AdminAction.preAction): one missing or a timestamp that is not an
// integer → CodeAPINotSigned; older than AdminSignMaxAgeMs at nowMs unless
// noCheckTime → CodeSignExpired; a wrong sign → CodeAuthFailure; else
// CodeSuccess. The rate limit (CodeOverFrequency) comes first on the real
// server and GET /admin/health needs no signature.
func CheckAdminSign(nonce, timestamp, sign, secret string, nowMs int64, noCheckTime bool) ErrorCode {
	if nonce == "" || timestamp == "" || sign == "" {
		return CodeAPINotSigned
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return CodeAPINotSigned
	}
	if !noCheckTime && nowMs-ts > AdminSignMaxAgeMs {
		return CodeSignExpired
	}
	if AdminSign(nonce, secret, timestamp) != sign {
		return CodeAuthFailure
	}
	return CodeSuccess
}

// AdminHeaderValues reads the three values as the server does: the
// lowercase header names first, then the capitalised ones (§4).
func AdminHeaderValues(h http.Header) (nonce, timestamp, sign string) {
	get := func(lower, upper string) string {
		if v := h[lower]; len(v) > 0 && v[0] != "" {
			return v[0]
		}
		return h.Get(upper)
	}
	return get(HeaderNonce, "Nonce"), get(HeaderTimestamp, "Timestamp"), get(HeaderSign, "Sign")
}
