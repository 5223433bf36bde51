package wukongim

import "strconv"

// AppendSendSign appends the string a SEND's msgKey signs (§4.5, GoProto
// SendPacket.VerityString): clientSeq and channelType in decimal, the rest as
// is, no separators, payloadB64 being the payload as sent (the base64 text).
func AppendSendSign(dst []byte, clientSeq uint32, clientMsgNo, channelID string, channelType uint8, payloadB64 []byte) []byte {
	dst = strconv.AppendUint(dst, uint64(clientSeq), 10)
	dst = append(dst, clientMsgNo...)
	dst = append(dst, channelID...)
	dst = strconv.AppendUint(dst, uint64(channelType), 10)
	return append(dst, payloadB64...)
}

// AppendRecvSign appends the string a RECV's msgKey signs (§4.6, GoProto
// RecvPacket.VerityString), the payload being the one sent to this
// connection (encrypted with its key).
func AppendRecvSign(dst []byte, messageID int64, messageSeq uint32, clientMsgNo string, timestamp int32,
	fromUID, channelID string, channelType uint8, payloadB64 []byte) []byte {
	dst = strconv.AppendInt(dst, messageID, 10)
	dst = strconv.AppendUint(dst, uint64(messageSeq), 10)
	dst = append(dst, clientMsgNo...)
	dst = strconv.AppendInt(dst, int64(timestamp), 10)
	dst = append(dst, fromUID...)
	dst = append(dst, channelID...)
	dst = strconv.AppendUint(dst, uint64(channelType), 10)
	return append(dst, payloadB64...)
}
