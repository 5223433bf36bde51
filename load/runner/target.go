package runner

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/grafana/sobek"

	"github.com/imbench/imbench/load/engine"
)

// Target validates a target description against its protocol (see
// engine.Target); it throws one-line errors.
func (mi *ModuleInstance) Target(v sobek.Value) (*engine.Target, error) {
	var t engine.Target
	if err := exportStrict(mi.vu.Runtime(), v, &t); err != nil {
		return nil, fmt.Errorf("im.target: %w", err)
	}
	if _, _, err := t.Open(); err != nil {
		return nil, err
	}
	return &t, nil
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
