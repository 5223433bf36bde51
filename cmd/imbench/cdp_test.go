package main

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

type cdp struct {
	t      *testing.T
	ws     *websocket.Conn
	id     int
	events []map[string]any
}

func (c *cdp) call(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.id++
	id := c.id
	if err := c.ws.WriteJSON(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		msg := c.read()
		if int(msgID(msg)) == id {
			if e, ok := msg["error"]; ok {
				c.t.Fatalf("%s: %v", method, e)
			}
			res, _ := msg["result"].(map[string]any)
			return res
		}
	}
}

func msgID(m map[string]any) float64 { v, _ := m["id"].(float64); return v }

func (c *cdp) read() map[string]any {
	c.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	var m map[string]any
	if err := c.ws.ReadJSON(&m); err != nil {
		c.t.Fatalf("devtools: %v", err)
	}
	if _, ok := m["method"]; ok {
		c.events = append(c.events, m)
	}
	return m
}

func (c *cdp) waitEvent(method string) {
	for _, e := range c.events {
		if e["method"] == method {
			return
		}
	}
	for {
		if m := c.read(); m["method"] == method {
			return
		}
	}
}

// navigate opens u and waits for its load event.
func (c *cdp) navigate(u string) {
	c.t.Helper()
	c.call("Page.navigate", map[string]any{"url": u})
	c.waitEvent("Page.loadEventFired")
}

// eval runs a JavaScript expression that returns a JSON string, into v.
func (c *cdp) eval(expr string, v any) {
	c.t.Helper()
	res := c.call("Runtime.evaluate", map[string]any{"returnByValue": true, "expression": expr})
	raw, _ := res["result"].(map[string]any)["value"].(string)
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		c.t.Fatalf("evaluate: %v (%v)", err, res)
	}
}

// charts measures what each chart of the page drew.
func (c *cdp) charts() []chartCheck {
	c.t.Helper()
	var charts []chartCheck
	c.eval(`JSON.stringify(
		[...document.querySelectorAll('figure.chart')].map(f => {
			const svg = f.querySelector('svg'), box = svg.getBoundingClientRect();
			const lines = [...svg.querySelectorAll('polyline')];
			return {title: f.querySelector('figcaption').textContent, points: +svg.dataset.points,
				lines: lines.length, length: lines.reduce((a, l) => a + l.getTotalLength(), 0),
				width: box.width, height: box.height};
		}))`, &charts)
	return charts
}

// requested is every URL the page asked for so far.
func (c *cdp) requested() []string {
	var urls []string
	for _, e := range c.events {
		if e["method"] == "Network.requestWillBeSent" {
			req := e["params"].(map[string]any)["request"].(map[string]any)
			urls = append(urls, fmt.Sprint(req["url"]))
		}
	}
	return urls
}
