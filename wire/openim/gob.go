package openim

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
)

// The gateway encodes and decodes every frame with a fresh gob encoder or
// decoder, so every frame is a complete gob stream: one type-definition
// message, then one value message. encoding/gob has to rebuild its type
// machinery for each such stream, which costs more than everything else on a
// delivery's path, so the envelope (a flat struct of ints, strings and bytes)
// is written and read here directly. encoding/gob stays the reference: tests
// compare both ways, and any shape this reader does not handle falls back to it.
//
// Wire facts (encoding/gob package doc, "Encoding details"): a message is
// uint(length) int(typeID) payload; a negative typeID defines type -typeID;
// a struct value is a run of (uint field-number delta, value) ended by delta 0,
// zero-valued fields omitted; uints < 128 are one byte, larger ones are a
// negated byte count and big-endian bytes; ints are zig-zag folded into uints.

var (
	reqTypeDef []byte // the definition message of Req, as encoding/gob writes it
	reqTypeID  uint64
)

func init() {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(Req{}); err != nil {
		panic(err)
	}
	r := gobReader{b: buf.Bytes()}
	n := r.uint()
	start := len(buf.Bytes()) - len(r.b)
	reqTypeDef = append([]byte(nil), buf.Bytes()[:start+int(n)]...)
	id := r.int()
	if r.err != nil || id >= 0 {
		panic("openim: unexpected gob type definition for Req")
	}
	reqTypeID = uint64(-id)
}

// gob type ids of the predeclared basic types.
const (
	gobBool   = 1
	gobInt    = 2
	gobUint   = 3
	gobBytes  = 5
	gobString = 6
)

func appendGobUint(b []byte, x uint64) []byte {
	if x < 0x80 {
		return append(b, byte(x))
	}
	var tmp [8]byte
	n := 8
	for x > 0 {
		n--
		tmp[n] = byte(x)
		x >>= 8
	}
	b = append(b, byte(-(8 - n)))
	return append(b, tmp[n:]...)
}

func appendGobInt(b []byte, i int64) []byte {
	var u uint64
	if i < 0 {
		u = uint64(^i<<1) | 1
	} else {
		u = uint64(i << 1)
	}
	return appendGobUint(b, u)
}

func appendGobString(b []byte, s string) []byte {
	b = appendGobUint(b, uint64(len(s)))
	return append(b, s...)
}

// appendGobReq appends a complete one-frame gob stream holding r.
func appendGobReq(dst []byte, r *Req) []byte {
	dst = append(dst, reqTypeDef...)
	const maxLen = 9
	head := len(dst)
	dst = append(dst, make([]byte, maxLen)...)
	body := len(dst)
	dst = appendGobUint(dst, reqTypeID<<1) // positive typeID, int-folded
	last := -1
	field := func(i int) {
		dst = appendGobUint(dst, uint64(i-last))
		last = i
	}
	if r.ReqIdentifier != 0 {
		field(0)
		dst = appendGobInt(dst, int64(r.ReqIdentifier))
	}
	for i, s := range [...]string{1: r.Token, 2: r.SendID, 3: r.OperationID, 4: r.MsgIncr} {
		if i > 0 && s != "" {
			field(i)
			dst = appendGobString(dst, s)
		}
	}
	if len(r.Data) > 0 {
		field(5)
		dst = appendGobUint(dst, uint64(len(r.Data)))
		dst = append(dst, r.Data...)
	}
	dst = append(dst, 0)
	lenBytes := appendGobUint(make([]byte, 0, maxLen), uint64(len(dst)-body))
	at := body - len(lenBytes)
	copy(dst[at:], lenBytes)
	n := copy(dst[head:], dst[at:])
	return dst[:head+n]
}

var errGobShape = errors.New("gob: shape not handled by the fast reader")

type gobReader struct {
	b   []byte
	err error
}

func (r *gobReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *gobReader) uint() uint64 {
	if len(r.b) == 0 {
		r.fail(errors.New("gob: unexpected end of frame"))
		return 0
	}
	b0 := r.b[0]
	if b0 < 0x80 {
		r.b = r.b[1:]
		return uint64(b0)
	}
	n := -int(int8(b0)) // in int: negating int8(-128) would stay -128
	if n > 8 || len(r.b) < 1+n {
		r.fail(errors.New("gob: bad unsigned integer"))
		return 0
	}
	var x uint64
	for _, c := range r.b[1 : 1+n] {
		x = x<<8 | uint64(c)
	}
	r.b = r.b[1+n:]
	return x
}

func (r *gobReader) int() int64 {
	u := r.uint()
	if u&1 != 0 {
		return ^int64(u >> 1)
	}
	return int64(u >> 1)
}

func (r *gobReader) bytes() []byte {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail(errors.New("gob: length beyond frame"))
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

type gobField struct {
	name   string
	typeID int64
}

// readStructDef reads a wireType holding a StructType of basic-typed fields.
func (r *gobReader) readStructDef() (id int64, fields []gobField) {
	if r.uint() != 3 { // wireType field 3 is StructT
		r.fail(errGobShape)
		return
	}
	for fn := -1; r.err == nil; {
		d := r.uint()
		if d == 0 {
			break
		}
		fn += int(d)
		switch fn {
		case 0: // CommonType{Name, Id}
			for cf := -1; r.err == nil; {
				d := r.uint()
				if d == 0 {
					break
				}
				cf += int(d)
				switch cf {
				case 0:
					r.bytes()
				case 1:
					id = r.int()
				default:
					r.fail(errGobShape)
				}
			}
		case 1: // Field []fieldType{Name, Id}
			n := r.uint()
			if n > 64 {
				r.fail(errGobShape)
			}
			for i := uint64(0); i < n && r.err == nil; i++ {
				var f gobField
				for ff := -1; r.err == nil; {
					d := r.uint()
					if d == 0 {
						break
					}
					ff += int(d)
					switch ff {
					case 0:
						f.name = string(r.bytes())
					case 1:
						f.typeID = r.int()
					default:
						r.fail(errGobShape)
					}
				}
				fields = append(fields, f)
			}
		default:
			r.fail(errGobShape)
		}
	}
	if r.uint() != 0 { // end of wireType
		r.fail(errGobShape)
	}
	return id, fields
}

// respDefCache remembers the last Resp definition message seen: a gateway
// sends the same one on every frame.
type respDefCache struct {
	def    []byte
	id     int64
	fields []gobField
}

var lastRespDef atomic.Pointer[respDefCache] // replaced wholesale, never mutated

func decodeGobResp(b []byte, out *Resp) error {
	*out = Resp{}
	err := fastDecodeResp(b, out)
	if err == nil {
		return nil
	}
	*out = Resp{}
	if gerr := gob.NewDecoder(bytes.NewReader(b)).Decode(out); gerr != nil {
		return fmt.Errorf("openim: decode gob envelope: %w", gerr)
	}
	return nil
}

func fastDecodeResp(b []byte, out *Resp) error {
	r := gobReader{b: b}
	var (
		defID  int64
		fields []gobField
	)
	for r.err == nil {
		n := r.uint()
		if r.err != nil || n > uint64(len(r.b)) {
			return errGobShape
		}
		msg := r.b[:n]
		r.b = r.b[n:]
		m := gobReader{b: msg}
		id := m.int()
		if id < 0 {
			if c := lastRespDef.Load(); c != nil && bytes.Equal(c.def, msg) {
				defID, fields = c.id, c.fields
				continue
			}
			defID, fields = m.readStructDef()
			if m.err != nil || defID != -id {
				return errGobShape
			}
			lastRespDef.Store(&respDefCache{def: append([]byte(nil), msg...), id: defID, fields: fields})
			continue
		}
		if id != defID || fields == nil {
			return errGobShape
		}
		if err := decodeRespValue(&m, fields, out); err != nil {
			return err
		}
		if len(r.b) != 0 {
			return errGobShape
		}
		return nil
	}
	return errGobShape
}

func decodeRespValue(m *gobReader, fields []gobField, out *Resp) error {
	for fn := -1; ; {
		d := m.uint()
		if m.err != nil {
			return m.err
		}
		if d == 0 {
			break
		}
		fn += int(d)
		if fn >= len(fields) {
			return errGobShape
		}
		f := fields[fn]
		var (
			iv int64
			bv []byte
		)
		switch f.typeID {
		case gobInt:
			iv = m.int()
		case gobUint, gobBool:
			u := m.uint()
			if u > math.MaxInt64 {
				return errGobShape
			}
			iv = int64(u)
		case gobBytes, gobString:
			bv = m.bytes()
		default:
			return errGobShape
		}
		if m.err != nil {
			return m.err
		}
		switch f.name {
		case "ReqIdentifier":
			if iv < math.MinInt32 || iv > math.MaxInt32 || bv != nil {
				return errGobShape
			}
			out.ReqIdentifier = int32(iv)
		case "ErrCode":
			if bv != nil {
				return errGobShape
			}
			out.ErrCode = int(iv)
		case "MsgIncr":
			out.MsgIncr = string(bv)
		case "OperationID":
			out.OperationID = string(bv)
		case "ErrMsg":
			out.ErrMsg = string(bv)
		case "Data":
			if f.typeID != gobBytes {
				return errGobShape
			}
			out.Data = append([]byte(nil), bv...)
		}
	}
	if len(m.b) != 0 {
		return errGobShape
	}
	return nil
}
