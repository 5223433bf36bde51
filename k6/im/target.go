package im

import (
	"errors"
	"fmt"
	"net"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/grafana/sobek"

	"github.com/imbench/imbench/internal/loopback"
	"github.com/imbench/imbench/k6/im/openim"
	wire "github.com/imbench/imbench/wire/openim"
)

// Target says where the server is and how to talk to it. name is the target
// profile (reference: the server shipped in targets/reference; openim: a
// real OpenIM), system the protocol the driver speaks.
type Target struct {
	Name        string   `js:"name"`
	System      string   `js:"system"`
	API         string   `js:"api"`
	WS          string   `js:"ws"`
	Secret      string   `js:"secret"`
	Admin       string   `js:"admin"`
	Platform    int      `js:"platform"`
	Envelope    string   `js:"envelope"`
	Compression string   `js:"compression"`
	MsgResp     bool     `js:"msgResp"`
	AllowRemote bool     `js:"allowRemote"`
	SourceAddrs []string `js:"sourceAddrs"`
	Timeout     string   `js:"timeout"`
}

// Target validates a target description; it throws one-line errors.
func (mi *ModuleInstance) Target(v sobek.Value) (*Target, error) {
	var t Target
	if err := exportStrict(mi.vu.Runtime(), v, &t); err != nil {
		return nil, fmt.Errorf("im.target: %w", err)
	}
	if err := t.normalize(); err != nil {
		return nil, err
	}
	return &t, nil
}

func (t *Target) normalize() error {
	if t.Name == "" {
		t.Name = "reference"
	}
	if t.System == "" {
		t.System = "openim"
	}
	if t.System != "openim" {
		return fmt.Errorf("target system %q is not supported (supported: openim)", t.System)
	}
	if t.Compression == "" {
		t.Compression = "gzip"
	}
	if t.Compression != "gzip" && t.Compression != "none" {
		return fmt.Errorf("compression %q: want gzip or none", t.Compression)
	}
	if t.Envelope == "" {
		t.Envelope = "gob"
	}
	cfg, err := t.openimConfig()
	if err != nil {
		return err
	}
	if !t.AllowRemote {
		for _, raw := range append([]string{cfg.APIURL}, strings.Split(cfg.WSURL, ",")...) {
			if err := loopback.Require(raw); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *Target) openimConfig() (openim.Config, error) {
	env, err := wire.ParseEnvelope(t.Envelope)
	if err != nil {
		return openim.Config{}, err
	}
	var timeout time.Duration
	if t.Timeout != "" {
		if timeout, err = time.ParseDuration(t.Timeout); err != nil || timeout <= 0 {
			return openim.Config{}, fmt.Errorf("timeout %q is not a positive duration", t.Timeout)
		}
	}
	cfg := openim.Config{APIURL: t.API, WSURL: t.WS, Secret: t.Secret, AdminID: t.Admin, Platform: t.Platform,
		Envelope: env, Gzip: t.Compression == "gzip", MsgResp: t.MsgResp, Timeout: timeout}
	for _, a := range t.SourceAddrs {
		ip := net.ParseIP(a)
		if ip == nil {
			return cfg, fmt.Errorf("source address %q is not an IP", a)
		}
		cfg.SourceAddrs = append(cfg.SourceAddrs, ip)
	}
	return cfg, cfg.Validate()
}

// exportStrict copies a JS object into dst, refusing keys dst has no field
// for, so a misspelt option is an error rather than silently ignored.
func exportStrict(rt *sobek.Runtime, v sobek.Value, dst any) error {
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return errors.New("an options object is required")
	}
	obj := v.ToObject(rt)
	known := map[string]bool{}
	typ := reflect.TypeOf(dst).Elem()
	for i := 0; i < typ.NumField(); i++ {
		if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("js"), ","); name != "" && name != "-" {
			known[name] = true
		}
	}
	var unknown []string
	for _, k := range obj.Keys() {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		names := make([]string, 0, len(known))
		for k := range known {
			names = append(names, k)
		}
		sort.Strings(names)
		return fmt.Errorf("unknown option %s (known: %s)", strings.Join(unknown, ", "), strings.Join(names, ", "))
	}
	if err := rt.ExportTo(v, dst); err != nil {
		return err
	}
	return nil
}
