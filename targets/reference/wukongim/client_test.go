package wukongim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/imbench/imbench/targets/reference/reftest"
	wire "github.com/imbench/imbench/wire/wukongim"
)

// client is a raw WKProto client written with wire/wukongim alone, over
// TCP or WebSocket.
type client struct {
	t       testing.TB
	nc      net.Conn        // TCP
	ws      *websocket.Conn // or WebSocket
	wsr     io.Reader
	version uint8
	cipher  *wire.Cipher
	buf     []byte
	seq     uint32
}

const (
	viaTCP = "tcp"
	viaWS  = "ws"
)

func dial(t testing.TB, tg *reftest.WKTarget, via string) *client {
	t.Helper()
	return dialAddr(t, strings.Split(tg.TCPAddr, ",")[0], strings.Split(tg.WSURL, ",")[0], via)
}

func dialAddr(t testing.TB, tcpURL, wsURL, via string) *client {
	t.Helper()
	c := &client{t: t, version: wire.LatestVersion}
	var err error
	if via == viaWS {
		c.ws, _, err = websocket.DefaultDialer.Dial(wsURL+"/any/path", nil)
	} else {
		c.nc, err = net.Dial("tcp", strings.TrimPrefix(tcpURL, "tcp://"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

func (c *client) close() {
	if c.ws != nil {
		c.ws.Close()
	} else {
		c.nc.Close()
	}
}

// raw writes bytes as they are (one WebSocket message over ws).
func (c *client) raw(b []byte) {
	c.t.Helper()
	var err error
	if c.ws != nil {
		err = c.ws.WriteMessage(websocket.BinaryMessage, b)
	} else {
		_, err = c.nc.Write(b)
	}
	if err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *client) write(ps ...wire.Packet) {
	c.t.Helper()
	var b []byte
	for _, p := range ps {
		var err error
		if b, err = p.Append(b, c.version); err != nil {
			c.t.Fatal(err)
		}
	}
	c.raw(b)
}

func (c *client) read(p []byte, deadline time.Time) (int, error) {
	if c.ws == nil {
		c.nc.SetReadDeadline(deadline)
		return c.nc.Read(p)
	}
	c.ws.SetReadDeadline(deadline)
	for {
		if c.wsr == nil {
			mt, r, err := c.ws.NextReader()
			if err != nil {
				return 0, err
			}
			if mt != websocket.BinaryMessage {
				return 0, errors.New("text message")
			}
			c.wsr = r
		}
		n, err := c.wsr.Read(p)
		if err == io.EOF {
			c.wsr = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

// next returns the next packet within timeout.
func (c *client) next(timeout time.Duration) (wire.Packet, error) {
	deadline := time.Now().Add(timeout)
	chunk := make([]byte, 8192)
	for {
		p, n, err := wire.DecodeFrame(c.buf, c.version)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			c.buf = c.buf[n:]
			return p, nil
		}
		k, err := c.read(chunk, deadline)
		c.buf = append(c.buf, chunk[:k]...)
		if err != nil && k == 0 {
			return nil, err
		}
	}
}

func (c *client) must(timeout time.Duration) wire.Packet {
	c.t.Helper()
	p, err := c.next(timeout)
	if err != nil {
		c.t.Fatalf("no packet: %v", err)
	}
	return p
}

// closedWithin reports whether the server closes the connection, sending
// nothing, within d; it fails the test on a packet.
func (c *client) closedWithin(d time.Duration) bool {
	c.t.Helper()
	p, err := c.next(d)
	if err == nil {
		c.t.Fatalf("got %T %+v, want the connection closed", p, p)
	}
	return !isTimeout(err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

type login struct {
	uid, token, deviceID string
	flag, version        uint8
}

// connect logs in and sets the negotiated version and cipher.
func (c *client) connect(l login) wire.Connack {
	c.t.Helper()
	ack, err := c.tryConnect(l, 5*time.Second)
	if err != nil {
		c.t.Fatalf("login of %s: %v", l.uid, err)
	}
	return ack
}

func (c *client) tryConnect(l login, timeout time.Duration) (wire.Connack, error) {
	kp, err := wire.GenerateKey(nil)
	if err != nil {
		return wire.Connack{}, err
	}
	if l.version == 0 {
		l.version = wire.LatestVersion
	}
	if l.deviceID == "" {
		l.deviceID = l.uid + "-dev"
	}
	c.version = l.version
	c.write(wire.Connect{Version: l.version, DeviceFlag: l.flag, DeviceID: l.deviceID, UID: l.uid, Token: l.token,
		ClientTimestamp: time.Now().UnixMilli(), ClientKey: kp.PublicKeyBase64()})
	p, err := c.next(timeout)
	if err != nil {
		return wire.Connack{}, err
	}
	ack, ok := p.(wire.Connack)
	if !ok {
		return wire.Connack{}, errors.New("first packet is not a CONNACK")
	}
	c.version = ack.Version(l.version)
	if ack.ServerKey != "" {
		if c.cipher, err = kp.Cipher(ack.ServerKey, ack.Salt); err != nil {
			return ack, err
		}
	}
	return ack, nil
}

// sendPacket makes the SEND of text to a channel, encrypted as negotiated.
func (c *client) sendPacket(channel string, typ uint8, text string) wire.Send {
	c.seq++
	s := wire.Send{Flags: wire.FlagRedDot, ClientSeq: c.seq, ClientMsgNo: channel + "-" + text, ChannelID: channel, ChannelType: typ}
	if c.cipher == nil {
		s.Payload = []byte(text)
		return s
	}
	s.Payload = c.cipher.Encrypt([]byte(text))
	s.MsgKey = c.cipher.MsgKey(s.AppendSign(nil))
	return s
}

// recv waits for a RECV, checks its msgKey and returns it with its
// plaintext.
func (c *client) recv(timeout time.Duration) (wire.Recv, string) {
	c.t.Helper()
	for {
		p := c.must(timeout)
		r, ok := p.(wire.Recv)
		if !ok {
			c.t.Fatalf("got %T %+v, want a RECV", p, p)
		}
		if c.cipher == nil {
			return r, string(r.Payload)
		}
		if key := c.cipher.MsgKey(r.AppendSign(nil)); key != r.MsgKey {
			c.t.Fatalf("RECV msgKey %s, want %s", r.MsgKey, key)
		}
		plain, err := c.cipher.Decrypt(r.Payload)
		if err != nil {
			c.t.Fatalf("RECV payload: %v", err)
		}
		return r, string(plain)
	}
}

// quiet proves nothing but a PONG comes before the PONG of a PING sent now.
func (c *client) quiet() {
	c.t.Helper()
	c.write(wire.Ping{})
	if p := c.must(5 * time.Second); p.PacketType() != wire.TypePong {
		c.t.Fatalf("got %T %+v before the PONG", p, p)
	}
}

// apiCall posts body (GET when nil) with the target's token and decodes the
// answer into out; it returns the HTTP status and the raw body.
func apiCall(t testing.TB, tg *reftest.WKTarget, method, path string, body, out any) (int, string) {
	t.Helper()
	return apiCallToken(t, tg, tg.Secret, method, path, body, out)
}

func apiCallToken(t testing.TB, tg *reftest.WKTarget, token, method, path string, body, out any) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, tg.APIURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode, strings.TrimSpace(string(raw))
}

// users gives each uid the token "tk-<uid>" for APP, slave.
func users(t testing.TB, tg *reftest.WKTarget, uids ...string) {
	t.Helper()
	for _, u := range uids {
		if st, body := apiCall(t, tg, http.MethodPost, wire.PathUserToken, wire.UserTokenReq{UID: u, Token: "tk-" + u}, nil); st != 200 || body != `{"status":200}` {
			t.Fatalf("token of %s: %d %s", u, st, body)
		}
	}
}

func group(t testing.TB, tg *reftest.WKTarget, id string, members ...string) {
	t.Helper()
	if st, body := apiCall(t, tg, http.MethodPost, wire.PathChannel, wire.ChannelCreateReq{ChannelID: id, ChannelType: wire.ChannelGroup, Subscribers: members}, nil); st != 200 {
		t.Fatalf("group %s: %d %s", id, st, body)
	}
}

// online logs uid in over via.
func online(t testing.TB, tg *reftest.WKTarget, via, uid string) *client {
	t.Helper()
	c := dial(t, tg, via)
	c.connect(login{uid: uid, token: "tk-" + uid})
	return c
}

// waitCounter waits for a counter the server moves after a write returns,
// which may be after the client read what it wrote.
func waitCounter(t testing.TB, tg *reftest.WKTarget, name string, want float64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for tg.Counter(t, name) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v, want %v", name, tg.Counter(t, name), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
