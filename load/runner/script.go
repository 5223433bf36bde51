package runner

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/grafana/sobek"

	"github.com/imbench/imbench/load/scenarios/lib"
)

// ModuleName is what a scenario imports: import im from 'imbench'.
const ModuleName = "imbench"

// Script is a scenario file evaluated once: what it exports.
type Script struct {
	Path          string
	Plan          *PlanHandle
	Options       ScenarioOptions
	handleSummary sobek.Callable
	rt            *sobek.Runtime
}

// bundle turns a scenario and the files it imports into one CommonJS
// script: relative imports are resolved and inlined, 'imbench' is left to
// require(). TypeScript scenarios work the same way.
func bundle(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{abs},
		Bundle:      true,
		Write:       false,
		Format:      api.FormatCommonJS,
		Platform:    api.PlatformNeutral,
		Target:      api.ES2017,
		Packages:    api.PackagesExternal, // require() names what is not imbench
		LogLevel:    api.LogLevelSilent,
		Charset:     api.CharsetUTF8,
		Plugins:     []api.Plugin{sharedModules},
		Sourcemap:   api.SourceMapInline, // the runtime's errors name the file's own lines
	})
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		where := ""
		if e.Location != nil {
			where = fmt.Sprintf("%s:%d:%d: ", e.Location.File, e.Location.Line, e.Location.Column)
		}
		return "", fmt.Errorf("%s%s", where, e.Text)
	}
	if len(res.OutputFiles) != 1 {
		return "", fmt.Errorf("%s: bundling gave %d outputs", path, len(res.OutputFiles))
	}
	return string(res.OutputFiles[0].Contents), nil
}

// sharedModules resolves 'imbench/env' and 'imbench/scenario' to the
// catalog's lib/env.js and lib/scenario.js, built in: a scenario anywhere
// imports them by name.
var sharedModules = api.Plugin{Name: "imbench-shared", Setup: func(b api.PluginBuild) {
	b.OnResolve(api.OnResolveOptions{Filter: "^imbench/"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
		if _, ok := lib.Modules[a.Path]; !ok {
			return api.OnResolveResult{}, fmt.Errorf("no module %q (there are %s)", a.Path, strings.Join(slices.Sorted(maps.Keys(lib.Modules)), ", "))
		}
		return api.OnResolveResult{Path: a.Path, Namespace: "imbench"}, nil
	})
	b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "imbench"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
		src := lib.Modules[a.Path]
		return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
	})
}}

// evaluate runs a scenario file with env as __ENV; it returns its exports.
func evaluate(path string, env map[string]string, runID string) (*sobek.Runtime, *sobek.Object, error) {
	code, err := bundle(path)
	if err != nil {
		return nil, nil, err
	}
	rt := sobek.New()
	rt.SetFieldNameMapper(sobek.TagFieldNameMapper("js", true))
	m := &module{rt: rt, runID: runID}
	ev := &envReads{rt: rt, env: maps.Clone(env), read: map[string]bool{}}
	if ev.env == nil {
		ev.env = map[string]string{}
	}
	envObj := rt.NewDynamicObject(ev)
	module := rt.NewObject()
	_ = module.Set("exports", rt.NewObject())
	require := func(name string) (sobek.Value, error) {
		if name == ModuleName {
			return m.exports(), nil
		}
		return nil, fmt.Errorf("module %q: a scenario imports only %q, %s and files of its own", name, ModuleName, strings.Join(slices.Sorted(maps.Keys(lib.Modules)), ", "))
	}
	limit, err := evalLimit(env)
	if err != nil {
		return nil, nil, err
	}
	timer := time.AfterFunc(limit, func() { rt.Interrupt(errEvalTooLong) })
	defer timer.Stop()
	// The wrapper opens on the bundle's first line, so that the source
	// map's lines stay the bundle's.
	fnVal, err := rt.RunScript(filepath.Base(path), "(function (module, exports, require, __ENV) {"+code+"\n})")
	if err != nil {
		return nil, nil, scriptError(path, err)
	}
	fn, ok := sobek.AssertFunction(fnVal)
	if !ok {
		return nil, nil, errors.New("the bundled scenario is not a function")
	}
	if _, err := fn(sobek.Undefined(), module, module.Get("exports"), rt.ToValue(require), envObj); err != nil {
		var stop *sobek.InterruptedError
		if errors.As(err, &stop) {
			return nil, nil, fmt.Errorf("%s: evaluating the scenario took longer than %s, stopped (a loop that never ends, or a plan built by hand too large; IM_EVAL_TIMEOUT allows more)", path, limit)
		}
		return nil, nil, scriptError(path, err)
	}
	timer.Stop()
	rt.ClearInterrupt()
	if err := ev.unread(path); err != nil {
		return nil, nil, err
	}
	return rt, module.Get("exports").ToObject(rt), nil
}

// evalLimit is how long evaluating a scenario may take: IM_EVAL_TIMEOUT,
// 30 s by default. A scenario states a workload; imbench builds it.
func evalLimit(env map[string]string) (time.Duration, error) {
	raw := env["IM_EVAL_TIMEOUT"]
	if raw == "" {
		return 30 * time.Second, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("IM_EVAL_TIMEOUT %q is not a positive duration", raw)
	}
	return d, nil
}

var errEvalTooLong = errors.New("evaluation took too long")

// Knobs are the run-size settings a user gives on the command line (make's
// SCALE, RATE, DURATION, BODY_SIZE), which reach a scenario only through
// its __ENV: one that never reads a knob it was given would ignore it.
var Knobs = []string{"IM_SCALE", "IM_RATE", "IM_DURATION", "IM_BODY_SIZE"}

// checkKnobs refuses a knob no scenario can take, by its variable, before
// a scenario passes it on to a class that would be blamed for it: counts
// and rates positive finite numbers, times positive durations.
func checkKnobs(env map[string]string) error {
	for _, name := range []string{"IM_SCALE", "IM_RATE", "IM_BODY_SIZE", "IM_USERS"} {
		if raw := env[name]; raw != "" {
			v, err := strconv.ParseFloat(raw, 64)
			if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("%s must be a positive number, got %q", name, raw)
			}
		}
	}
	for _, name := range []string{"IM_DURATION", "IM_HOLD"} {
		if raw := env[name]; raw != "" {
			if d, err := time.ParseDuration(raw); err != nil || d <= 0 {
				return fmt.Errorf("%s must be a positive duration (30s, 2m, 1h30m), got %q", name, raw)
			}
		}
	}
	return nil
}

// envReads is __ENV: the environment, and which of its names the scenario
// read.
type envReads struct {
	rt   *sobek.Runtime
	env  map[string]string
	read map[string]bool
}

func (e *envReads) Get(key string) sobek.Value {
	e.read[key] = true
	if v, ok := e.env[key]; ok {
		return e.rt.ToValue(v)
	}
	return nil
}
func (e *envReads) Set(key string, v sobek.Value) bool { e.env[key] = v.String(); return true }
func (e *envReads) Has(key string) bool                { e.read[key] = true; _, ok := e.env[key]; return ok }
func (e *envReads) Delete(key string) bool             { delete(e.env, key); return true }
func (e *envReads) Keys() []string {
	for k := range e.env { // spreading __ENV reads all of it
		e.read[k] = true
	}
	return slices.Sorted(maps.Keys(e.env))
}

// unread is an error naming the knobs given and never read.
func (e *envReads) unread(path string) error {
	var missed []string
	for _, k := range Knobs {
		if e.env[k] != "" && !e.read[k] {
			missed = append(missed, strings.TrimPrefix(k, "IM_"))
		}
	}
	if len(missed) == 0 {
		return nil
	}
	return fmt.Errorf("%s does not read %s from __ENV, so the run would ignore it: spread planKnobs(__ENV) (import { planKnobs } from 'imbench/env') into its workload, or leave %s unset",
		path, strings.Join(missed, ", "), strings.Join(missed, ", "))
}

// Export evaluates a file and returns one of its exports as a Go value.
func Export(path string, env map[string]string, runID, name string) (any, error) {
	_, out, err := evaluate(path, env, runID)
	if err != nil {
		return nil, err
	}
	v := out.Get(name)
	if v == nil || sobek.IsUndefined(v) {
		return nil, fmt.Errorf("%s exports no %s", path, name)
	}
	return v.Export(), nil
}

// Load evaluates a scenario with env as __ENV and reads its exports: plan
// (im.workload or im.integration), options (optional) and handleSummary
// (optional). runID is the run's id when the plan does not name one.
func Load(path string, env map[string]string, runID string) (*Script, error) {
	rt, out, err := evaluate(path, env, runID)
	if err != nil {
		return nil, err
	}
	s := &Script{Path: path, rt: rt}
	pv := out.Get("plan")
	if pv == nil || sobek.IsUndefined(pv) {
		return nil, fmt.Errorf("%s exports no plan: export const plan = im.workload({...}) or im.integration({...})", path)
	}
	ph, ok := pv.Export().(*PlanHandle)
	if !ok {
		return nil, fmt.Errorf("%s: its plan export is not what im.workload or im.integration returned", path)
	}
	s.Plan = ph
	if ov := out.Get("options"); ov != nil && !sobek.IsUndefined(ov) && !sobek.IsNull(ov) {
		if s.Options, err = decodeOptions(ov.Export()); err != nil {
			return nil, fmt.Errorf("%s: options: %w", path, err)
		}
	}
	if hv := out.Get("handleSummary"); hv != nil && !sobek.IsUndefined(hv) {
		f, ok := sobek.AssertFunction(hv)
		if !ok {
			return nil, fmt.Errorf("%s: handleSummary is exported but is not a function", path)
		}
		s.handleSummary = f
	}
	return s, nil
}

// scriptError is a script's exception as one line: its message and where.
func scriptError(path string, err error) error {
	var ex *sobek.Exception
	if errors.As(err, &ex) {
		msg := ex.Value().String()
		if obj, ok := ex.Value().(*sobek.Object); ok {
			if m := obj.Get("message"); m != nil && !sobek.IsUndefined(m) {
				msg = m.String()
			}
		}
		return fmt.Errorf("%s: %s", where(path, ex), strings.TrimPrefix(msg, "GoError: "))
	}
	return fmt.Errorf("%s: %w", path, err)
}

// HandleSummary calls the scenario's handleSummary with the summary as a
// plain object; it returns what to write: file name → content, "stdout"
// and "stderr" for the terminal. ok is false when the scenario exports none.
func (s *Script) HandleSummary(summary any) (out map[string]string, ok bool, err error) {
	if s.handleSummary == nil {
		return nil, false, nil
	}
	v, err := s.handleSummary(sobek.Undefined(), s.rt.ToValue(summary))
	if err != nil {
		return nil, true, fmt.Errorf("handleSummary threw: %w", scriptError(s.Path, err))
	}
	if v == nil || sobek.IsUndefined(v) || sobek.IsNull(v) {
		return map[string]string{}, true, nil
	}
	obj, isObj := v.(*sobek.Object)
	if !isObj {
		return nil, true, fmt.Errorf("%s: handleSummary must return an object of file name → content", s.Path)
	}
	out = map[string]string{}
	for _, k := range obj.Keys() {
		val := obj.Get(k)
		if o, isObj := val.(*sobek.Object); isObj && o.ClassName() != "String" {
			raw, err := o.MarshalJSON()
			if err != nil {
				return nil, true, fmt.Errorf("%s: handleSummary's %q: %w", s.Path, k, err)
			}
			out[k] = string(raw)
			continue
		}
		out[k] = val.String()
	}
	return out, true, nil
}

// where is the exception's innermost place in the scenario's own files
// (the bundle's source map gives their lines), else path.
func where(path string, ex *sobek.Exception) string {
	for _, f := range ex.Stack() {
		p := f.Position()
		if p.Line > 0 && p.Filename != "" && !strings.HasPrefix(p.Filename, "imbench:") {
			name := p.Filename // relative to the working directory, as esbuild writes it
			if abs, err := filepath.Abs(name); err == nil {
				if mine, err := filepath.Abs(path); err == nil && mine == abs {
					name = path
				} else if strings.HasPrefix(name, "..") {
					name = abs
				}
			}
			return fmt.Sprintf("%s:%d:%d", name, p.Line, p.Column)
		}
	}
	return path
}
