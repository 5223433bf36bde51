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
// parses has a matching CRC, in-range fields and a run id inside the input,
// and the same fields written back by AppendBody parse to the same body.
func FuzzParseBody(f *testing.F) {
	for _, size := range []int{0, 60, 120, 1000} {
		f.Add(AppendBody(nil, "run-1", 3, 7, 1, 1700000000000000, size))
	}
	f.Add(AppendBody(nil, "", 4294967295, 4294967295, 4294967295, 1<<62, 0))
	f.Add([]byte("imb1|r|1|2|3|4||00000000"))
	f.Add([]byte("imb1|"))
	f.Add([]byte("hello"))
	f.Add([]byte(`{"content":"imb1|x"}`))
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
		sum, perr := strconv.ParseUint(string(b[cut+1:]), 16, 32)
		if perr != nil || uint32(sum) != crc32.ChecksumIEEE(b[:cut]) {
			t.Fatalf("accepted %q with a wrong CRC", b)
		}
		if body.N == 0 || body.CreateUs < 0 || body.CreateUs > 1<<62 || bytes.IndexByte(body.Run, '|') >= 0 {
			t.Fatalf("out of range: %+v", body)
		}
		if len(body.Run) > 0 {
			start := uintptr(unsafe.Pointer(unsafe.SliceData(body.Run))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
			if start != uintptr(len(bodyMagic)) {
				t.Fatalf("run id at %d, not inside the input after the magic", start)
			}
		}
		again := AppendBody(nil, string(body.Run), body.Sender, body.Conv, body.N, body.CreateUs, len(b))
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

// canonical reports a body whose numbers have no leading zeros, whose
// padding is all 'x' and whose CRC is in lower case (upper case parses too).
func canonical(b []byte) bool {
	cut := bytes.LastIndexByte(b, '|')
	if !bytes.Equal(b[cut+1:], bytes.ToLower(b[cut+1:])) {
		return false
	}
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
		if err != nil || string(got.Run) != run || got.Sender != sender || got.Conv != conv || got.N != n || got.CreateUs != createUs {
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

// FuzzParseHex32 reads 8 hex digits exactly as strconv does.
func FuzzParseHex32(f *testing.F) {
	for _, s := range []string{"00000000", "ffffffff", "FFFFFFFF", "0aB3c4D5", "1234567", "123456789", "0x123456", "+1234567", "_1234567", "1234567g", "        "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parseHex32(b)
		want, err := strconv.ParseUint(string(b), 16, 32)
		if (err == nil && len(b) == 8) != ok || ok && got != uint32(want) {
			t.Fatalf("%q: %x %v, strconv %x %v", b, got, ok, want, err)
		}
	})
}
