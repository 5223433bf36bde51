// Package wukongim is imbench's driver for WuKongIM v2 (wire/wukongim:
// ../shared/protocols/wukongim.md): users and group channels set up over the
// HTTP API, one binary WKProto connection per user over TCP (or WebSocket),
// CONNECT with the X25519 key exchange and AES-encrypted SEND/RECV, every
// RECV acknowledged, and late users' catch-up through /channel/messagesync,
// counted apart from pushes.
//
// Facts it relies on (wukongim.md §5, §13, §14): nothing may follow CONNECT
// before CONNACK; a refused login gets no CONNACK (silence, closed ≈ 6 s
// later); in a login burst the server drops a few logins it accepted, closing
// the connection before the CONNACK or never writing it, and a retry gets
// through (the engine retries; the error names the causes in the order the
// evidence supports); tokens are per user and device flag; a deviceID is
// unique per connection (a reused one is kicked); an un-acked RECV is sent
// again with the same seq and no DUP flag (a second copy of a RECV, acked
// or not, counts as a duplicate: the wire cannot tell a resend from a
// second push); a kick is DISCONNECT reason 12; the sending connection gets
// no RECV of its own message; back-to-back SENDs may come back as RECVs
// out of messageSeq order, and a push that comes after the client pulled
// the gap is a late push (counted as pushed after pull), not a duplicate.
package wukongim
