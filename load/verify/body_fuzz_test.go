package verify

import (
	"bytes"
	"hash/crc32"
	"strconv"
	"testing"
	"unsafe"
)

// FuzzParseBody reads any received text as a benchmark message: no panic;
// a text without the magic is foreign, any other refusal corrupt; what
// parses has a matching CRC, in-range fields and a run tag inside the input,
// and the same fields written back parse to the same body.
func FuzzParseBody(f *testing.F) {
	for _, size := range []int{0, 60, 120, 1000} {
		f.Add(AppendBody(nil, "run-1", 3, 7, 1, 1700000000000000, size))
	}
	f.Add(AppendBody(nil, "", 4294967295, 4294967295, 4294967295, 1<<62, 0))
	f.Add([]byte("i2|abcd|1|2|3|4||0000000"))
	f.Add([]byte("imb1|r|1|2|3|4||00000000"))
	f.Add([]byte("i2|"))
	f.Add([]byte("hello"))
	f.Add([]byte(`{"content":"i2|x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		body, err := ParseBody(b)
		if !IsBody(b) {
			if err != ErrForeign {
				t.Fatalf("no magic: %v", err)
			}
			return
		}
		if err != nil {
			if err != ErrCorrupt || body.Run != nil || body.N != 0 {
				t.Fatalf("refused with %v and %+v", err, body)
			}
			return
		}
		cut := bytes.LastIndexByte(b, '|')
		sum, perr := strconv.ParseUint(string(b[cut+1:]), 36, 64)
		if perr != nil || sum != uint64(crc32.ChecksumIEEE(b[:cut])) {
			t.Fatalf("accepted %q with a wrong CRC", b)
		}
		if body.N == 0 || body.CreateUs < 0 || body.CreateUs > 1<<62 || bytes.IndexByte(body.Run, '|') >= 0 {
			t.Fatalf("out of range: %+v", body)
		}
		if len(body.Run) != tagDigits {
			t.Fatalf("run tag %q", body.Run)
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(body.Run))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if start != uintptr(len(bodyMagic)) {
			t.Fatalf("run tag at %d, not inside the input after the magic", start)
		}
		again := appendBody(nil, body.Run, body.Sender, body.Conv, body.N, body.CreateUs, len(b))
		back, err := ParseBody(again)
		if err != nil || !bytes.Equal(back.Run, body.Run) || back.Sender != body.Sender || back.Conv != body.Conv ||
			back.N != body.N || back.CreateUs != body.CreateUs {
			t.Fatalf("%q rewritten as %q: %+v %v", b, again, back, err)
		}
		// Canonical numbers and 'x' padding: the rewrite is the input.
		if len(again) == len(b) && !bytes.Equal(again, b) && canonical(b) {
			t.Fatalf("canonical %q rewritten as %q", b, again)
		}
	})
}

// canonical reports a body whose numbers have no leading zeros and whose
// padding is all 'x'.
func canonical(b []byte) bool {
	cut := bytes.LastIndexByte(b, '|')
	parts := bytes.Split(b[len(bodyMagic):cut], []byte("|"))
	if len(parts) != 6 {
		return false
	}
	for _, p := range parts[1:5] {
		if len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return len(bytes.Trim(parts[5], "x")) == 0
}

// FuzzBodyRoundTrip writes any fields and size: the text is at least size
// bytes (unless the fields alone are longer), needs no escaping, and parses
// back to the fields; one changed byte makes it corrupt.
func FuzzBodyRoundTrip(f *testing.F) {
	f.Add("run-1", uint32(3), uint32(7), uint32(1), int64(1700000000000000), 120, uint16(9))
	f.Add("", uint32(0), uint32(0), uint32(4294967295), int64(0), 0, uint16(0))
	f.Fuzz(func(t *testing.T, run string, sender, conv, n uint32, createUs int64, size int, flip uint16) {
		if bytes.ContainsAny([]byte(run), "|\"\\") || n == 0 || createUs < 0 || createUs > 1<<62 {
			return
		}
		size %= 1 << 16
		b := AppendBody(nil, run, sender, conv, n, createUs, size)
		if len(b) < size {
			t.Fatalf("%d bytes for size %d", len(b), size)
		}
		got, err := ParseBody(b)
		if err != nil || string(got.Run) != RunTag(run) || got.Sender != sender || got.Conv != conv || got.N != n || got.CreateUs != createUs {
			t.Fatalf("%q parsed to %+v %v", b, got, err)
		}
		i := len(bodyMagic) + int(flip)%(len(b)-len(bodyMagic))
		c := bytes.Clone(b)
		c[i] ^= 0x01
		if _, err := ParseBody(c); err != ErrCorrupt {
			t.Fatalf("byte %d changed in %q: %v", i, b, err)
		}
	})
}

// FuzzParse36 reads up to 12 lower-case base-36 digits exactly as strconv
// does, and nothing else.
func FuzzParse36(f *testing.F) {
	for _, s := range []string{"0", "zzzzzzzzzzzz", "1z141z3", "abc", "ABC", "", "1234567890123", "+1", "_1", "1 ", "0x1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parse36(b)
		want, err := strconv.ParseUint(string(b), 36, 64)
		lower := len(b) > 0 && len(b) <= 12 && !bytes.ContainsFunc(b, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'z') })
		if ok != (lower && err == nil) || ok && got != want {
			t.Fatalf("%q: %d %v, strconv %d %v", b, got, ok, want, err)
		}
	})
}
