// Package openim is OpenIM's wire format (open-im-server v3.8.x,
// openimsdk/protocol v0.0.73): what the load generator's driver
// (load/openim) and the reference server's front end
// (targets/reference/openim) both speak, so neither imports the other.
//
// The facts it follows, each with its source, are in
// ../shared/protocols/openim.md:
//
//   - msggateway is a WebSocket on any path; the login is in the query
//     (sendID, token, platformID, operationID, isBackground, compression,
//     sdkType, isMsgResp) and a refusal is {"errCode","errMsg","errDlt"}:
//     an HTTP 200 body, or with isMsgResp=true a text frame (§1.2, §1.3).
//   - Every application frame is binary: an envelope Req/Resp, gob with a
//     fresh encoder per frame (sdkType=go) or JSON (sdkType=js), gzipped as
//     a whole with compression=gzip; its Data is protobuf (§1.4, §1.5).
//   - The server's read deadline is 30 s; frames above 51,200 bytes close the
//     connection (§1.6).
//   - Request identifiers (§1.7) and error codes (§1.8) are below; a single
//     chat is si_<a>_<b> with the two ids sorted as strings, a group
//     sg_<groupID>, seqs count from 1 per conversation (§2.5); a text is
//     contentType 101 with content {"content":"..."} (§2.6).
//
// pb/ holds the protobuf messages, generated from our own openim.proto
// (make proto); tests hold them byte-equal to vectors made by the real
// library.
package openim
