// No Docker engine runs where imbench is built and tested, so these tests
// check everything about the Docker stack that can be checked without one,
// on the project Docker Compose's own loader (compose-go) makes of the file:
// interpolated, with profiles applied, as `docker compose` would see it.
package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/sirupsen/logrus"
	"gopkg.in/yaml.v3"
)

// The services that run whatever the profile, and those each profile adds.
var (
	base            = []string{"cadvisor", "grafana", "node-exporter", "process-exporter", "prometheus", "victorialogs"}
	profileServices = map[string][]string{
		"reference": {"imbench-target"},
		"openim":    {"etcd", "kafka", "minio", "mongo", "openim-server", "redis"},
		"wukongim":  {"wukongim"},
		"wildfire":  {"wildfire", "wildfire-exporter"},
		"runner":    {"runner"},
	}
)

func allProfiles() []string {
	var out []string
	for p := range profileServices {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// secretName is an environment variable of a container that holds a secret.
var secretName = regexp.MustCompile(`(?i)(PASSWORD|SECRET|MANAGERTOKEN)`)

// warnings collects what compose-go logs while it loads (an unset variable
// is a warning, as `docker compose` prints it).
type warnings struct{ lines []string }

func (w *warnings) Levels() []logrus.Level { return []logrus.Level{logrus.WarnLevel} }
func (w *warnings) Fire(e *logrus.Entry) error {
	w.lines = append(w.lines, e.Message)
	return nil
}

// loadProject loads the compose files (docker-compose.yml first) as
// `docker compose --profile ...` does, with exactly env as the environment.
func loadProject(t *testing.T, env map[string]string, profiles []string, files ...string) (*types.Project, []string, error) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	var configs []types.ConfigFile
	for _, f := range append([]string{"docker-compose.yml"}, files...) {
		configs = append(configs, types.ConfigFile{Filename: filepath.Join(dir, f)})
	}
	mapping := types.Mapping{}
	for k, v := range env {
		mapping[k] = v
	}
	w := &warnings{}
	std := logrus.StandardLogger()
	out, hooks := std.Out, std.ReplaceHooks(logrus.LevelHooks{})
	std.SetOutput(io.Discard)
	std.AddHook(w)
	defer func() { std.SetOutput(out); std.ReplaceHooks(hooks) }()
	p, err := loader.LoadWithContext(context.Background(),
		types.ConfigDetails{WorkingDir: dir, ConfigFiles: configs, Environment: mapping},
		loader.WithProfiles(profiles))
	return p, w.lines, err
}

// sentinels gives each variable a value that names it (WILDFIRE_RELEASE,
// a host path, an existing file).
func sentinels(t *testing.T, vars []string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, v := range vars {
		env[v] = "s3cr3t-" + v
		if v == "WILDFIRE_RELEASE" {
			f := filepath.Join(t.TempDir(), "distribution-1.2.4-bundle-tar.tar.gz")
			os.WriteFile(f, []byte("x"), 0o644)
			env[v] = f
		}
	}
	return env
}

// withEmpties is env plus every variable of compose/env.go it lacks, empty:
// what internal/stack/compose.go hands `docker compose`.
func withEmpties(env map[string]string) map[string]string {
	out := map[string]string{}
	for _, v := range Secrets() {
		out[v] = ""
	}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// full is every profile's project, each variable set.
func full(t *testing.T) *types.Project {
	t.Helper()
	p, _, err := loadProject(t, sentinels(t, Secrets()), allProfiles())
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return p
}

func names(s types.Services) []string {
	var out []string
	for n := range s {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func env(s types.ServiceConfig, k string) string {
	if v := s.Environment[k]; v != nil {
		return *v
	}
	return ""
}

// Each profile loads with only its own variables set (and what the base
// services need), yields exactly its services, hands each of them the
// values it was given, and uses every variable compose/env.go lists for it.
// The others' services are interpolated too (docker/compose#11977): their
// unset variables are warnings, not errors, and none at all when unset ones
// are passed empty as compose.go does.
func TestEachProfileLoadsWithOnlyItsVariables(t *testing.T) {
	for _, profile := range allProfiles() {
		vars := sentinels(t, Vars(profile))
		p, warned, err := loadProject(t, vars, []string{profile})
		if err != nil {
			t.Errorf("profile %s with only %v set: %v", profile, Vars(profile), err)
			continue
		}
		want := append(append([]string(nil), base...), profileServices[profile]...)
		sort.Strings(want)
		if got := names(p.Services); !slices.Equal(got, want) {
			t.Errorf("profile %s starts %v, want %v", profile, got, want)
		}
		for _, w := range warned {
			if !strings.Contains(w, "variable is not set") {
				t.Errorf("profile %s: compose warns: %s", profile, w)
			}
			for v := range vars {
				if strings.Contains(w, `"`+v+`"`) {
					t.Errorf("profile %s: its own variable %s is unset: %s", profile, v, w)
				}
			}
		}
		if _, warned, err := loadProject(t, withEmpties(vars), []string{profile}); err != nil || len(warned) > 0 {
			t.Errorf("profile %s as compose.go runs it: err %v, warnings %v", profile, err, warned)
		}

		used := map[string]bool{}
		for name, s := range p.Services {
			for k, v := range s.Environment {
				if v == nil {
					continue
				}
				for vr, val := range vars {
					if *v == val {
						used[vr] = true
					}
				}
				if secretName.MatchString(k) && !isSentinel(*v, vars) {
					t.Errorf("profile %s: %s gets %s=%q, not a variable compose/env.go lists for the profile", profile, name, k, *v)
				}
			}
			for _, arg := range s.Command {
				for vr, val := range vars {
					if strings.Contains(arg, val) {
						used[vr] = true
					}
				}
			}
			for _, m := range s.Volumes {
				for vr, val := range vars {
					if m.Source == val {
						used[vr] = true
					}
				}
			}
		}
		for _, v := range Vars(profile) {
			if !used[v] {
				t.Errorf("compose/env.go lists %s for profile %s, but no service of it uses it", v, profile)
			}
		}
	}
}

func isSentinel(v string, vars map[string]string) bool {
	for _, val := range vars {
		if v == val {
			return true
		}
	}
	return false
}

// The bug this layout fixes: `GRAFANA_ADMIN_PASSWORD=... make up` stopped on
// the other profiles' required variables. And with nothing set at all the
// file still loads, as `docker compose run --rm runner`, `down` and `ps`
// need it to: Grafana's password is required by Grafana itself, whose
// entrypoint refuses an empty one and otherwise hands over to the image's.
func TestReferenceNeedsOnlyGrafanaPassword(t *testing.T) {
	p, _, err := loadProject(t, map[string]string{"GRAFANA_ADMIN_PASSWORD": "pw"}, []string{"reference"})
	if err != nil {
		t.Fatalf("reference profile with only GRAFANA_ADMIN_PASSWORD set: %v", err)
	}
	if _, ok := p.Services["imbench-target"]; !ok {
		t.Error("the reference profile does not start imbench-target")
	}
	p, _, err = loadProject(t, nil, []string{"runner"})
	if err != nil {
		t.Fatalf("profile runner with nothing set (make run-scenario, make down): %v", err)
	}
	g := p.Services["grafana"]
	if env(g, "GF_SECURITY_ADMIN_PASSWORD") != "" {
		t.Fatal("Grafana's password has a default")
	}
	if len(g.Entrypoint) < 3 || g.Entrypoint[0] != "sh" || g.Entrypoint[1] != "-c" || !strings.Contains(g.Entrypoint[2], "exec /run.sh") {
		t.Fatalf("grafana entrypoint %q: want a sh -c guard that execs the image's /run.sh", g.Entrypoint)
	}
	guard := func(password string) (string, error) {
		cmd := exec.Command(g.Entrypoint[0], g.Entrypoint[1:]...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GF_SECURITY_ADMIN_PASSWORD=" + password}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := guard(""); err == nil || !strings.Contains(out, "GRAFANA_ADMIN_PASSWORD") {
		t.Errorf("Grafana with no password: err %v, output %q; want a refusal naming GRAFANA_ADMIN_PASSWORD", err, out)
	}
	if out, _ := guard("pw"); strings.Contains(out, "GRAFANA_ADMIN_PASSWORD") || !strings.Contains(out, "/run.sh") {
		t.Errorf("Grafana with a password does not reach /run.sh: %q", out)
	}
}

// make up's check (internal/stack/compose.go calls Check) names every missing
// variable of the profile in one line, and only those.
func TestCheckNamesMissingSecrets(t *testing.T) {
	getenv := func(set ...string) func(string) string {
		return func(k string) string {
			if slices.Contains(set, k) {
				return "x"
			}
			return ""
		}
	}
	err := Check("openim", getenv("GRAFANA_ADMIN_PASSWORD", "OPENIM_SECRET"))
	if err == nil {
		t.Fatal("openim without MONGO_PASSWORD, REDIS_PASSWORD, MINIO_SECRET_KEY passes")
	}
	msg := err.Error()
	for _, v := range []string{"MONGO_PASSWORD", "REDIS_PASSWORD", "MINIO_SECRET_KEY"} {
		if !strings.Contains(msg, v) {
			t.Errorf("%q does not name %s", msg, v)
		}
	}
	if strings.Contains(msg, "OPENIM_SECRET") || strings.Contains(msg, "GRAFANA") || strings.Contains(msg, "\n") {
		t.Errorf("%q names a variable that is set, or is more than one line", msg)
	}
	if err := Check("wildfire", getenv("GRAFANA_ADMIN_PASSWORD", "WILDFIRE_ADMIN_SECRET")); err == nil || !strings.Contains(err.Error(), "WILDFIRE_RELEASE") {
		t.Errorf("wildfire without its release package: %v", err)
	}
	if err := Check("reference", getenv("GRAFANA_ADMIN_PASSWORD")); err != nil {
		t.Errorf("reference needs only Grafana's password (make up generates the target's secret): %v", err)
	}
	if err := Check("reference", getenv()); err == nil || !strings.Contains(err.Error(), "GRAFANA_ADMIN_PASSWORD") {
		t.Errorf("no Grafana password: %v", err)
	}
	if err := Check("nosuch", getenv()); err == nil {
		t.Error("an unknown profile passes")
	}
	// Every target `make up TARGET=<name>` accepts is a profile here.
	for _, tp := range targetProfiles(t) {
		if _, ok := Needs[tp.Name]; !ok {
			t.Errorf("target %s has no entry in compose/env.go's Needs", tp.Name)
		}
		if _, ok := profileServices[tp.Name]; !ok {
			t.Errorf("target %s has no compose profile", tp.Name)
		}
	}
}

func TestImagesArePinned(t *testing.T) {
	pinned := regexp.MustCompile(`^[a-z0-9./-]+:([A-Za-z0-9._-]+)$`)
	p := full(t)
	df, _ := os.ReadFile("Dockerfile")
	for name, s := range p.Services {
		m := pinned.FindStringSubmatch(s.Image)
		switch {
		case s.Build != nil:
			if !strings.HasPrefix(s.Image, "imbench/") {
				t.Errorf("%s: a built image needs an imbench/ name, has %q", name, s.Image)
			}
			if !regexp.MustCompile(`(?m)^FROM \S+ AS ` + regexp.QuoteMeta(s.Build.Target) + `$`).Match(df) {
				t.Errorf("%s: builds stage %q, which the Dockerfile lacks", name, s.Build.Target)
			}
		case m == nil || m[1] == "latest" || m[1] == "main" || m[1] == "master":
			t.Errorf("%s: image %q is not pinned to a version tag", name, s.Image)
		}
	}
	// The Dockerfile's base images too.
	for _, from := range regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(string(df), -1) {
		if !pinned.MatchString(from[1]) || strings.HasSuffix(from[1], ":latest") {
			t.Errorf("Dockerfile: base image %q is not pinned", from[1])
		}
	}
}

func TestPortsBindLoopbackOnly(t *testing.T) {
	for name, s := range full(t).Services {
		for _, port := range s.Ports {
			if port.HostIP != "127.0.0.1" || port.Published == "" {
				t.Errorf("%s: port %d is published on %q:%q, not on 127.0.0.1", name, port.Target, port.HostIP, port.Published)
			}
		}
	}
}

func TestMountedPathsExist(t *testing.T) {
	vars := sentinels(t, Secrets())
	p, _, err := loadProject(t, vars, allProfiles())
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("..")
	for name, s := range p.Services {
		for _, m := range s.Volumes {
			switch {
			case m.Type == types.VolumeTypeVolume:
				if _, ok := p.Volumes[m.Source]; !ok {
					t.Errorf("%s: named volume %q is not declared", name, m.Source)
				}
			case m.Type != types.VolumeTypeBind:
				t.Errorf("%s: volume %+v is neither named nor bound", name, m)
			case m.Source == vars["WILDFIRE_RELEASE"]:
				// the release package, from the environment
			case m.Source == filepath.Join(repo, "results"):
				// the runs' output, created by `imbench run` before the runner mounts it
			case strings.HasPrefix(m.Source, repo+string(filepath.Separator)):
				if _, err := os.Stat(m.Source); err != nil {
					t.Errorf("%s: mounts %s, which does not exist", name, m.Source)
				}
			default:
				// host paths (/proc, /sys, …) for the exporters
			}
		}
		if s.Build != nil {
			if _, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile)); err != nil {
				t.Errorf("%s: build file: %v", name, err)
			}
		}
	}
}

// Secrets come from the environment, verbatim, with no defaults: given
// every variable, each secret of a container is one of them; given none,
// each is empty, and so is every command argument that held one.
func TestSecretsHaveNoDefaults(t *testing.T) {
	vars := sentinels(t, Secrets())
	set, _, err := loadProject(t, vars, allProfiles())
	if err != nil {
		t.Fatal(err)
	}
	unset, _, err := loadProject(t, nil, allProfiles())
	if err != nil {
		t.Fatalf("every profile with nothing set: %v", err)
	}
	for name, s := range set.Services {
		u := unset.Services[name]
		for k, v := range s.Environment {
			if !secretName.MatchString(k) || v == nil {
				continue
			}
			if !isSentinel(*v, vars) {
				t.Errorf("%s: %s=%q is not taken verbatim from the environment", name, k, *v)
			}
			if got := env(u, k); got != "" {
				t.Errorf("%s: %s defaults to %q", name, k, got)
			}
		}
		for i, arg := range s.Command {
			if strings.Contains(arg, "s3cr3t-") && (i >= len(u.Command) || u.Command[i] != "") {
				t.Errorf("%s: command argument %d defaults to %q", name, i, u.Command[i])
			}
		}
	}
}

func TestProfilesBringWhatTheyPromise(t *testing.T) {
	p := full(t)
	for name, s := range p.Services {
		if s.Labels["imbench.component"] == "" {
			t.Errorf("%s: no imbench.component label (cAdvisor's fallback needs it)", name)
		}
	}
	for _, svc := range base {
		if s, ok := p.Services[svc]; !ok || len(s.Profiles) != 0 {
			t.Errorf("%s must run in every profile", svc)
		}
	}
	aliases := func(svc string) []string {
		if n := p.Services[svc].Networks["default"]; n != nil {
			return n.Aliases
		}
		return nil
	}
	for alias, svcs := range map[string][]string{
		"im-api": {"imbench-target", "openim-server"}, // Prometheus and the runner use it for OpenIM
		"wk":     {"imbench-target", "wukongim"},      // for WuKongIM
		"wf":     {"imbench-target", "wildfire"},      // for Wildfire (and the exporter)
	} {
		for _, svc := range svcs {
			if !slices.Contains(aliases(svc), alias) {
				t.Errorf("%s must answer as %s", svc, alias)
			}
		}
	}
	var mounted bool
	for _, m := range p.Services["process-exporter"].Volumes {
		mounted = mounted || strings.HasSuffix(m.Source, filepath.Join("exporters", "process-exporter.yml"))
	}
	if !mounted {
		t.Error("process-exporter must use the generated exporters/process-exporter.yml")
	}
}

// The log store is VictoriaLogs, as natively: imbench and the reference
// target push Loki's protocol to it; nothing of Loki is left.
func TestLogsGoToVictoriaLogs(t *testing.T) {
	p := full(t)
	vl, ok := p.Services["victorialogs"]
	if !ok {
		t.Fatal("no victorialogs service")
	}
	if vl.Image != "victoriametrics/victoria-logs:v1.52.1" {
		t.Errorf("victorialogs image %q, want the official victoriametrics/victoria-logs:v1.52.1", vl.Image)
	}
	if len(vl.Ports) != 1 || vl.Ports[0].Target != 9428 || vl.Ports[0].Published != "9428" {
		t.Errorf("victorialogs publishes %+v, want 127.0.0.1:9428", vl.Ports)
	}
	var data string
	for _, arg := range vl.Command {
		if v, ok := strings.CutPrefix(arg, "-storageDataPath="); ok {
			data = v
		}
	}
	var kept bool
	for _, m := range vl.Volumes {
		kept = kept || (m.Type == types.VolumeTypeVolume && m.Target == data)
	}
	if data == "" || !kept {
		t.Errorf("victorialogs keeps its data at %q, which no named volume holds", data)
	}
	for _, c := range []struct{ svc, key, host, port, path string }{
		{"imbench-target", "IMBENCH_TARGET_LOG_PUSH", "victorialogs", "9428", "/insert/loki/api/v1/push"},
		{"runner", "IM_LOG_PUSH_URL", "victorialogs", "9428", "/insert/loki/api/v1/push"},
		{"runner", "IM_PROMETHEUS_RW_URL", "prometheus", "9090", "/api/v1/write"},
	} {
		u, err := url.Parse(env(p.Services[c.svc], c.key))
		if err != nil || u.Hostname() != c.host || u.Port() != c.port || u.Path != c.path {
			t.Errorf("%s: %s=%q, want http://%s:%s%s", c.svc, c.key, env(p.Services[c.svc], c.key), c.host, c.port, c.path)
		}
	}
	if !slices.Contains(p.Services["prometheus"].Command, "--web.enable-remote-write-receiver") {
		t.Error("Prometheus does not take remote writes")
	}
	for name, s := range p.Services {
		if strings.Contains(strings.ToLower(name+" "+s.Image), "loki") {
			t.Errorf("%s (%s): compose runs no Loki", name, s.Image)
		}
		for k, v := range s.Environment {
			if v != nil && strings.Contains(*v, ":3100") {
				t.Errorf("%s: %s=%s still points at Loki's port", name, k, *v)
			}
		}
	}
	if _, err := os.Stat("loki.yml"); err == nil {
		t.Error("compose/loki.yml is left over")
	}
}

// The runner is imbench, built from ./cmd/imbench, at /work with the
// scenarios and results/ where `imbench run` looks for them.
func TestRunnerIsImbench(t *testing.T) {
	p := full(t)
	r := p.Services["runner"]
	if !slices.Equal(r.Entrypoint, []string{"imbench"}) || r.WorkingDir != "/work" || r.Build == nil {
		t.Fatalf("runner: entrypoint %v, working_dir %q, build %+v; want imbench at /work, built here", r.Entrypoint, r.WorkingDir, r.Build)
	}
	targets := map[string]string{}
	for _, m := range r.Volumes {
		targets[m.Target] = m.Source
	}
	repo, _ := filepath.Abs("..")
	if targets["/work/results"] != filepath.Join(repo, "results") || targets["/work/load/scenarios"] != filepath.Join(repo, "load", "scenarios") {
		t.Errorf("runner mounts %v; want results/ and load/scenarios/ under /work", targets)
	}
	raw, _ := os.ReadFile("Dockerfile")
	df := string(raw)
	at := strings.Index(df, " AS "+r.Build.Target+"\n")
	if at < 0 {
		t.Fatalf("the Dockerfile has no stage %s", r.Build.Target)
	}
	stage := df[at:]
	if i := strings.Index(stage, "\nFROM "); i >= 0 {
		stage = stage[:i]
	}
	for _, want := range []string{"COPY --from=build /out/imbench /usr/local/bin/imbench", "COPY load/scenarios /work/load/scenarios",
		"COPY --from=build /out/work/targets /work/targets", `ENTRYPOINT ["imbench"]`, "WORKDIR /work"} {
		if !strings.Contains(stage, want) {
			t.Errorf("the Dockerfile's %s stage lacks %q", r.Build.Target, want)
		}
	}
	for _, want := range []string{"-o /out/imbench ./cmd/imbench", "-o /out/imbench-target ./targets/reference"} {
		if !strings.Contains(df, want) {
			t.Errorf("the Dockerfile does not build %q", want)
		}
	}
	if strings.Contains(df, "k6") {
		t.Error("the Dockerfile still mentions k6")
	}
}

type promConfig struct {
	RuleFiles     []string `yaml:"rule_files"`
	ScrapeConfigs []struct {
		JobName string `yaml:"job_name"`
	} `yaml:"scrape_configs"`
}

func jobs(t *testing.T, path string) []string {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c promConfig
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, j := range c.ScrapeConfigs {
		out = append(out, j.JobName)
	}
	sort.Strings(out)
	return out
}

// Compose scrapes what native scrapes, plus cAdvisor.
func TestScrapeJobsMatchNative(t *testing.T) {
	native := jobs(t, "../prometheus/prometheus.yml")
	composed := jobs(t, "prometheus.yml")
	want := append(append([]string(nil), native...), "cadvisor")
	sort.Strings(want)
	if strings.Join(composed, ",") != strings.Join(want, ",") {
		t.Fatalf("compose jobs %v, native jobs %v (+cadvisor)", composed, native)
	}
}

// dashboardSources is every (type, uid) data source the generated
// dashboards name, Grafana's own left out.
func dashboardSources(t *testing.T) map[[2]string]bool {
	t.Helper()
	files, _ := filepath.Glob("../dashboards/*.json")
	if len(files) == 0 {
		t.Fatal("no generated dashboards")
	}
	out := map[[2]string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ds, ok := v["datasource"].(map[string]any); ok {
				typ, _ := ds["type"].(string)
				uid, _ := ds["uid"].(string)
				if typ != "grafana" && !strings.HasPrefix(uid, "$") {
					out[[2]string{typ, uid}] = true
				}
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(d)
	}
	return out
}

// Grafana's provisioning gives the data sources the types and uids the
// dashboards use, each reachable in compose; a data source whose plugin
// Grafana does not ship is installed at start, at a pinned version; and the
// dashboards load from where compose mounts them.
func TestGrafanaProvisioningFitsTheDashboards(t *testing.T) {
	p := full(t)
	g := p.Services["grafana"]
	raw, err := os.ReadFile("../dashboards/provisioning/datasources/datasources.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ds struct {
		Datasources []struct{ Name, Type, UID, URL string } `yaml:"datasources"`
	}
	if err := yaml.Unmarshal(raw, &ds); err != nil {
		t.Fatal(err)
	}
	provisioned := map[[2]string]bool{}
	preinstalled := map[string]string{}
	for _, e := range strings.Split(env(g, "GF_PLUGINS_PREINSTALL_SYNC"), ",") {
		id, version, _ := strings.Cut(strings.TrimSpace(e), "@")
		preinstalled[id] = version
	}
	builtin := map[string]bool{"prometheus": true, "loki": true, "tempo": true, "grafana-testdata-datasource": true}
	for _, d := range ds.Datasources {
		provisioned[[2]string{d.Type, d.UID}] = true
		if !builtin[d.Type] && !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(preinstalled[d.Type]) {
			t.Errorf("data source %s: Grafana does not ship plugin %s; GF_PLUGINS_PREINSTALL_SYNC must install it at a pinned version (has %q)",
				d.Name, d.Type, env(g, "GF_PLUGINS_PREINSTALL_SYNC"))
		}
		u := d.URL
		if m := regexp.MustCompile(`^\$\{?([A-Z_]+)\}?$`).FindStringSubmatch(u); m != nil {
			u = env(g, m[1])
			if u == "" {
				t.Errorf("data source %s: url %s, which Grafana's environment does not set", d.Name, d.URL)
				continue
			}
		}
		parsed, err := url.Parse(u)
		if err != nil || !reachable(p, parsed.Hostname(), parsed.Port()) {
			t.Errorf("data source %s: %s is no service's port in compose", d.Name, u)
		}
	}
	for src := range dashboardSources(t) {
		if !provisioned[src] {
			t.Errorf("the dashboards use data source type %s uid %s, which Grafana's provisioning lacks (%v)", src[0], src[1], provisioned)
		}
	}
	var logs bool
	for src := range provisioned {
		logs = logs || src[0] == "victoriametrics-logs-datasource"
	}
	if !logs {
		t.Error("no VictoriaLogs data source is provisioned: the log panel has nothing to query in compose")
	}

	raw, _ = os.ReadFile("../dashboards/provisioning/dashboards/imbench.yaml")
	var prov struct {
		Providers []struct {
			Options struct{ Path string } `yaml:"options"`
		} `yaml:"providers"`
	}
	yaml.Unmarshal(raw, &prov)
	dashboards, _ := filepath.Abs("../dashboards")
	var mounted bool
	for _, m := range g.Volumes {
		mounted = mounted || (len(prov.Providers) == 1 && m.Source == dashboards && m.Target == prov.Providers[0].Options.Path)
	}
	if !mounted {
		t.Fatalf("dashboards provider %+v is not where compose mounts dashboards/ (%+v)", prov.Providers, g.Volumes)
	}
}

// reachable: host is a service (or an alias of one) that listens on port.
func reachable(p *types.Project, host, port string) bool {
	for name, s := range p.Services {
		named := name == host
		if n := s.Networks["default"]; n != nil && slices.Contains(n.Aliases, host) {
			named = true
		}
		if !named {
			continue
		}
		for _, pc := range s.Ports {
			if fmt.Sprint(pc.Target) == port {
				return true
			}
		}
	}
	return false
}
