package wildfire

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/imbench/imbench/wire/wildfire/pb"
)

// PullResult is what a puller reads of an MP's PullMessageResult: the
// numbers, and per message the fields that place it and its text.
type PullResult struct {
	Messages []PulledMessage
	Current  int64
	Head     int64
}

// PulledMessage is one message of a PullResult. Its byte fields alias the
// bytes Decode read (or copies, for a result proto decoded).
type PulledMessage struct {
	ConvType   int32
	ConvTarget []byte
	FromUser   []byte
	MessageID  int64
	Text       []byte // the content's searchable_content
}

// Decode decodes a PullMessageResult into r, reusing r.Messages. It gives
// the values proto.Unmarshal into pb.PullMessageResult gives through the
// getters, and fails for the same input. The form servers write is read in
// place, without allocating once r.Messages has grown; anything else (a
// field proto would merge, one the schema lacks, a required one missing)
// goes through proto.Unmarshal.
func (r *PullResult) Decode(b []byte) error {
	if r.decodePlain(b) {
		return nil
	}
	return r.decodeProto(b)
}

func (r *PullResult) decodeProto(b []byte) error {
	var res pb.PullMessageResult
	if err := proto.Unmarshal(b, &res); err != nil {
		*r = PullResult{Messages: r.Messages[:0]}
		return err
	}
	*r = PullResult{Messages: r.Messages[:0], Current: res.GetCurrent(), Head: res.GetHead()}
	for _, m := range res.GetMessage() {
		r.Messages = append(r.Messages, PulledMessage{
			ConvType:   m.GetConversation().GetType(),
			ConvTarget: []byte(m.GetConversation().GetTarget()),
			FromUser:   []byte(m.GetFromUser()),
			MessageID:  m.GetMessageId(),
			Text:       []byte(m.GetContent().GetSearchableContent()),
		})
	}
	return nil
}

// decodePlain reads b in place; false when b is not in the plain form.
func (r *PullResult) decodePlain(b []byte) bool {
	r.Messages = r.Messages[:0]
	var current, head bool
	for len(b) > 0 {
		f, ok := nextField(&b)
		switch {
		case !ok:
			return false
		case f.is(1, protowire.BytesType):
			m, ok := plainMessage(f.bytes)
			if !ok {
				return false
			}
			r.Messages = append(r.Messages, m)
		case f.is(2, protowire.VarintType):
			current, r.Current = true, int64(f.varint)
		case f.is(3, protowire.VarintType):
			head, r.Head = true, int64(f.varint)
		default:
			return false
		}
	}
	return current && head
}

func plainMessage(b []byte) (m PulledMessage, ok bool) {
	var conv, from, content bool
	for len(b) > 0 {
		f, ok := nextField(&b)
		switch {
		case !ok:
			return m, false
		case f.is(1, protowire.BytesType) && !conv: // a second one proto would merge
			conv = true
			if m.ConvType, m.ConvTarget, ok = plainConversation(f.bytes); !ok {
				return m, false
			}
		case f.is(2, protowire.BytesType):
			from, m.FromUser = true, f.bytes
		case f.is(3, protowire.BytesType) && !content:
			content = true
			if m.Text, ok = plainContent(f.bytes); !ok {
				return m, false
			}
		case f.is(4, protowire.VarintType):
			m.MessageID = int64(f.varint)
		case f.is(5, protowire.VarintType), f.is(6, protowire.BytesType), f.is(7, protowire.BytesType):
		default:
			return m, false
		}
	}
	return m, conv && from && content
}

func plainConversation(b []byte) (typ int32, target []byte, ok bool) {
	var hasType, hasTarget, hasLine bool
	for len(b) > 0 {
		f, ok := nextField(&b)
		switch {
		case !ok:
			return 0, nil, false
		case f.is(1, protowire.VarintType):
			hasType, typ = true, int32(f.varint)
		case f.is(2, protowire.BytesType):
			hasTarget, target = true, f.bytes
		case f.is(3, protowire.VarintType):
			hasLine = true
		default:
			return 0, nil, false
		}
	}
	return typ, target, hasType && hasTarget && hasLine
}

// plainContent returns a MessageContent's searchable_content.
func plainContent(b []byte) (text []byte, ok bool) {
	var hasType bool
	for len(b) > 0 {
		f, ok := nextField(&b)
		switch {
		case !ok:
			return nil, false
		case f.is(1, protowire.VarintType):
			hasType = true
		case f.is(2, protowire.BytesType):
			text = f.bytes
		case f.typ == protowire.BytesType && contentBytesField(f.num),
			f.typ == protowire.VarintType && contentVarintField(f.num):
		default:
			return nil, false
		}
	}
	return text, hasType
}

// contentBytesField and contentVarintField are MessageContent's other
// fields: strings and bytes, and int32s.
func contentBytesField(n protowire.Number) bool {
	return n == 3 || n == 4 || n == 5 || n == 7 || n == 11 || n == 12 || n == 13
}

func contentVarintField(n protowire.Number) bool { return n == 6 || n == 8 || n == 9 || n == 10 }

// field is one varint or length-delimited field of a protobuf message.
type field struct {
	num    protowire.Number
	typ    protowire.Type
	varint uint64
	bytes  []byte
}

func (f field) is(n protowire.Number, t protowire.Type) bool { return f.num == n && f.typ == t }

// nextField consumes a field off *b; ok is false for malformed input and
// for the other wire types, which no field of these messages has.
func nextField(b *[]byte) (f field, ok bool) {
	num, typ, n := protowire.ConsumeTag(*b)
	if n < 0 {
		return f, false
	}
	rest := (*b)[n:]
	switch typ {
	case protowire.VarintType:
		f.varint, n = protowire.ConsumeVarint(rest)
	case protowire.BytesType:
		f.bytes, n = protowire.ConsumeBytes(rest)
	default:
		return f, false
	}
	if n < 0 {
		return f, false
	}
	f.num, f.typ = num, typ
	*b = rest[n:]
	return f, true
}

// AppendPullRequest appends the PullMessageRequest of an MP for what comes
// after id in feed typ: what proto.Marshal writes, without its allocations.
func AppendPullRequest(dst []byte, id int64, typ int32) []byte {
	dst = protowire.AppendVarint(protowire.AppendTag(dst, 1, protowire.VarintType), uint64(id))
	return protowire.AppendVarint(protowire.AppendTag(dst, 2, protowire.VarintType), uint64(int64(typ)))
}
