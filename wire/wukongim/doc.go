// Package wukongim is WuKongIM v2's binary wire format, WKProto as
// WuKongIMGoProto v1.2.3 writes it (protocol versions 3–5), plus the
// connection crypto and the HTTP API shapes: what the load generator's
// driver (load/wukongim) and the reference server's front end
// (targets/reference/wukongim) both speak, so every packet has an encoder
// and a decoder whichever side sends it.
//
// The facts it follows, with their sources, are in
// ../shared/protocols/wukongim.md:
//
//   - A frame is (type<<4 | flags), a remaining length of 1–4 bytes
//     (7 bits each, least significant first) and the body; PING is the one
//     byte 0x70 and PONG 0x80, with no length. Bodies over 1 MiB are refused
//     (§2). Flags: NoPersist 1, RedDot 2, SyncOnce 4, DUP 8; on CONNACK bit 0
//     is HasServerVersion (§2).
//   - Integers are big-endian; a string is a uint16 length and its bytes,
//     the length read as int16 (so at most 32767); a payload is the rest of
//     the body (§2).
//   - Layouts of CONNECT, CONNACK, SEND, SENDACK, RECV, RECVACK, DISCONNECT,
//     SUB, SUBACK and EVENT are in §3. The version decides: expire in SEND
//     and RECV from 3; CONNACK's nodeId from 4; stream fields in SEND and
//     RECV only for 2 <= v < 5 with setting bit Stream (0x02); a topic with
//     setting bit Topic (0x08).
//   - The server decodes CONNECT, then uses min(client version, 5) for
//     CONNACK and everything after, both ways; it sets CONNACK's
//     HasServerVersion and serverVersion iff the client asked for more than
//     3 (§2, §13). Send nothing after CONNECT until CONNACK arrives (§5).
//   - Encryption (§4): X25519 key pairs per connection, public keys as
//     base64; AES-128-CBC/PKCS#7 with key = first 16 hex chars of
//     MD5(base64(shared)) and IV = the 16-char salt; payloads travel as the
//     base64 text; msgKey = hex MD5 of the encrypted sign string (SEND:
//     clientSeq clientMsgNo channelID channelType payload; RECV: messageID
//     messageSeq clientMsgNo timestamp fromUID channelID channelType
//     payload). A server with disableEncryption sends serverKey "" and
//     salt "": payloads are then raw and msgKey "".
//   - Constants are in §6: channel types, device flags, the 26 reason codes;
//     a kick is DISCONNECT(12, "login in other device") (§3, §13).
//   - The HTTP API on port 5001 (§8) is in api.go, each shape checked against
//     the server's source.
//
// Decoders never panic on any input: a short body is ErrShort, a negative
// string length ErrBadString. Encoders append to a caller's slice, compute
// the body size first (one growth at most) and refuse, with an error, a
// string over 32767 bytes, a SEND payload over 32767 bytes (the client
// library's limit) or a body over 1 MiB. One deliberate difference from
// GoProto: an empty body is written with a 0x00 length byte, where GoProto
// writes none (and then cannot read it back); no real packet is empty.
//
// Tests hold the codecs and crypto byte-equal to vectors made by the real
// library (../shared/protocols/vectors/wukongim-goproto-v1.2.3.txt, §7).
package wukongim
