// Package wildfire is the wire format of the Wildfire IM (野火IM) community
// server, im-server 1.2.4: its extended MQTT 3.1.1, the wfAES and DES token
// crypto, the protobuf bodies (package pb) and the admin API shapes. The
// load generator's driver and the reference server's front end both speak
// it, so every packet has an encoder and a decoder whichever side sends it.
//
// The facts it follows, with their sections in
// ../shared/protocols/wildfire.md:
//
//   - Transport (§1, §5.3): MQTT over TCP on 1883. Standard MQTT 3.1.1
//     framing: type<<4 | flags, a remaining length of 1–4 bytes, the body.
//     The server's decoder refuses bodies over 256 KiB
//     (MaxClientRemainingLength) and any reserved fixed-header flag, e.g.
//     DISCONNECT e8 00 or e1 00 (§5.7): ValidFlags.
//   - CONNECT (§5.3): level 4 (6, "Wildfire_2", enables gzipped PUBACK
//     results; 3 is refused; 5 expects MQTT 5 properties, not modelled),
//     flags 0xC2 (username, password, clean session), flag 0x20 reused as
//     "signature follows the password", client id = get_token's clientId,
//     username = user id, password = wfAES(secret)(hour ‖ DES token).
//   - CONNACK (§5.3, §14): 20 <len> <session present> <code>, then on success
//     a plaintext ConnectAckPayload; a fresh user got 20 11 00 00
//     080010001800200038c1d5deada034. Codes 0–8, 7 = session not exist.
//   - Requests (§2, §5.4): PUBLISH QoS 1, topic = IM topic (§7), body =
//     wfAES(secret)(hour ‖ protobuf); answered by PUBACK 40 <len> <id>
//     <code> [wfAES(secret)(hour ‖ result)], possibly out of order. MS's
//     result is messageUid ‖ timestamp, int64 big-endian (§5.5, §14). Code
//     250 is the rate limit (100 per 5 s per client and topic; MP and UG
//     exempt), 254 an unknown topic, 2 an undecryptable body, 255 success
//     with a gzipped result (levels >= 5).
//   - Pushes (§2, §5.6): PUBLISH QoS 0, plaintext: MN (NotifyMessage; the
//     client answers with MP), MS for transparent messages, ROFL "1" when
//     kicked (§14), and others. PINGREQ c0 00 → PINGRESP d0 00; DISCONNECT
//     e0 00 only (§5.7).
//   - wfAES (§3.1): AES-CBC, PKCS#5, IV = the key's first 16 bytes; the
//     root key for an empty user key, else the secret's first 16 (32 with
//     encrypt.use_aes256) characters; plaintext = hour since 2018-01-01
//     00:00 +08:00 as 3 little-endian bytes and a 0, then the data; the
//     reader refuses an hour more than 24 h from its own and a plaintext of
//     4 bytes or fewer. Functions take the hour as a parameter, so the clock
//     is the caller's.
//   - Tokens (§3.2, §3.3): DES token = base64(DES-CBC("key|ms|userId"),
//     key "abcdefgh", IV 01..08); IM token = base64(wfAES_root(hour ‖
//     "desToken|secret|dbSecret")).
//   - Admin API (§4): sign = hex sha1(nonce|secret|timestamp), 239 missing,
//     243 older than 2 h, 244 wrong; JSON shapes in api.go.
//
// Decoders never panic and never read past their body: a short body is
// ErrShort, trailing bytes after a fixed layout ErrTrailing. Encoders append
// to a caller's slice, size the body first (one growth at most) and refuse
// with an error what the server's decoder would refuse. AppendRequest and
// AppendResponse encrypt straight into the frame.
//
// testdata/vectors.txt holds bytes made by
// ../shared/protocols/reference/wildfire_reference.py (and python protobuf
// from the reference .proto) with the clock pinned; testdata/gen_vectors.py
// regenerates them. pb/wildfire.proto is our trimmed copy of
// reference/wfcmessage_community.proto (same field numbers); regenerate
// pb/wildfire.pb.go in wire/wildfire/pb with
// protoc --go_out=. --go_opt=paths=source_relative wildfire.proto
// and protoc-gen-go v1.36.11 from .tools/bin.
package wildfire
