// Package wukongim is imbench's driver for WuKongIM v2 (wire/wukongim:
// ../shared/protocols/wukongim.md): users and group channels set up over the
// HTTP API, one binary WKProto connection per user over TCP (or WebSocket),
// CONNECT with the X25519 key exchange and AES-encrypted SEND/RECV, every
// RECV acknowledged, and late users' catch-up through /channel/messagesync,
// counted apart from pushes.
//
// Facts it relies on (wukongim.md §5, §13): nothing may follow CONNECT
// before CONNACK; a refused login gets no CONNACK (a timeout is the
// refusal); tokens are per user and device flag; a deviceID is unique per
// connection (a reused one is kicked); an un-acked RECV is sent again with
// the same seq and no DUP flag; a kick is DISCONNECT reason 12; the sending
// connection gets no RECV of its own message.
package wukongim
