package compose

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type targetProfile struct {
	Name      string            `yaml:"name"`
	Endpoints map[string]string `yaml:"endpoints"`
	Metrics   []string          `yaml:"metrics"`
}

func targetProfiles(t *testing.T) []targetProfile {
	t.Helper()
	files, _ := filepath.Glob("../targets/*/profile.yaml")
	var out []targetProfile
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p targetProfile
		if err := yaml.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		t.Fatal("no target profiles")
	}
	return out
}

// `make up TARGET=<name>` starts compose's profile <name>: whatever the
// target's profile says to connect to on this machine (its endpoints, its
// metrics) is published there on 127.0.0.1 by a service of that profile.
func TestComposeProfilesPublishWhatTargetsName(t *testing.T) {
	for _, tp := range targetProfiles(t) {
		p, _, err := loadProject(t, sentinels(t, Vars(tp.Name)), []string{tp.Name})
		if err != nil {
			t.Fatalf("profile %s: %v", tp.Name, err)
		}
		published := map[string]string{} // host port → service
		for name, s := range p.Services {
			if !slices.Contains(s.Profiles, tp.Name) {
				continue
			}
			for _, port := range s.Ports {
				published[port.Published] = name
			}
		}
		if len(published) == 0 {
			t.Errorf("compose has no service publishing anything for profile %s", tp.Name)
			continue
		}
		var urls []string
		for _, u := range tp.Endpoints {
			urls = append(urls, u)
		}
		urls = append(urls, tp.Metrics...)
		for _, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil || u.Hostname() != "127.0.0.1" {
				continue
			}
			if _, ok := published[u.Port()]; !ok {
				t.Errorf("profile %s names %s, but no service of compose profile %s publishes 127.0.0.1:%s", tp.Name, raw, tp.Name, u.Port())
			}
		}
	}
}

// The build stage copies every folder of the module the binaries it
// builds import (it once lacked wire/, which k6 imports).
func TestDockerfileCopiesWhatItBuilds(t *testing.T) {
	raw, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(raw)
	build := regexp.MustCompile(`go build [^\n]*-o \S+ (\./\S+)`).FindAllStringSubmatch(df, -1)
	if len(build) == 0 {
		t.Fatal("the Dockerfile builds nothing")
	}
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}"}
	for _, b := range build {
		args = append(args, b[1])
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %v: %v", args, err)
	}
	copied := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^COPY (\S+) `).FindAllStringSubmatch(df, -1) {
		copied[strings.TrimSuffix(m[1], "/")] = true
	}
	const module = "github.com/imbench/imbench/"
	for _, pkg := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(pkg, module)
		if !ok {
			continue
		}
		top, _, _ := strings.Cut(rest, "/")
		if !copied[top] {
			t.Errorf("the build stage imports %s but does not COPY %s/", pkg, top)
			copied[top] = true // once
		}
	}
	// Every COPY from the context names something that exists.
	for _, m := range regexp.MustCompile(`(?m)^COPY ((?:\S+ )+)\S+$`).FindAllStringSubmatch(df, -1) {
		for _, src := range strings.Fields(m[1]) {
			if strings.HasPrefix(src, "--") {
				break // COPY --from=…: another stage's
			}
			if _, err := os.Stat(filepath.Join("..", src)); err != nil {
				t.Errorf("Dockerfile copies %s, which does not exist", src)
			}
		}
	}
}

// The exporter reaches the server as wf on its admin port, signs with the
// secret the server is given, listens beyond loopback only because it
// says -allow-remote, and is published and scraped on the same port.
func TestWildfireExporterWiring(t *testing.T) {
	p := full(t)
	server, exporter := p.Services["wildfire"], p.Services["wildfire-exporter"]
	flags := map[string]string{}
	for i := 0; i < len(exporter.Command); i++ {
		f := exporter.Command[i]
		if f == "-allow-remote" {
			flags[f] = "true"
			continue
		}
		if i+1 < len(exporter.Command) {
			flags[f] = exporter.Command[i+1]
			i++
		}
	}
	if u, err := url.Parse(flags["-admin-url"]); err != nil || !slices.Contains(server.Networks["default"].Aliases, u.Hostname()) || u.Port() != "18080" {
		t.Errorf("exporter -admin-url %q is not the wildfire service's admin port", flags["-admin-url"])
	}
	name := flags["-secret-env"]
	if name == "" || env(exporter, name) == "" || env(exporter, name) != env(server, "WILDFIRE_ADMIN_SECRET") {
		t.Errorf("exporter reads its secret from %q = %q; want the server's WILDFIRE_ADMIN_SECRET", name, env(exporter, name))
	}
	listen := flags["-listen"]
	if !strings.HasPrefix(listen, "0.0.0.0:") || flags["-allow-remote"] != "true" {
		t.Errorf("exporter listens on %q (allow-remote %q): in a container it needs 0.0.0.0 and -allow-remote", listen, flags["-allow-remote"])
	}
	_, port, _ := strings.Cut(listen, ":")
	var published bool
	for _, pc := range exporter.Ports {
		published = published || (strconv.Itoa(int(pc.Target)) == port && pc.Published == port)
	}
	if !published {
		t.Errorf("exporter listens on %s but publishes %+v", port, exporter.Ports)
	}
	if got := composeDNSPort(t, "wildfire-exporter"); strconv.Itoa(got) != port {
		t.Errorf("compose Prometheus scrapes wildfire-exporter on %d, it listens on %s", got, port)
	}
}

// composeDNSPort is the port compose's Prometheus scrapes a DNS name on.
func composeDNSPort(t *testing.T, name string) int {
	t.Helper()
	raw, err := os.ReadFile("prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ScrapeConfigs []struct {
			DNSSDConfigs []struct {
				Names []string `yaml:"names"`
				Port  int      `yaml:"port"`
			} `yaml:"dns_sd_configs"`
		} `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	for _, j := range c.ScrapeConfigs {
		for _, sd := range j.DNSSDConfigs {
			if slices.Contains(sd.Names, name) {
				return sd.Port
			}
		}
	}
	t.Fatalf("compose/prometheus.yml scrapes no DNS name %s", name)
	return 0
}

// compose/wildfire-jmx.yml only turns the agent on, on the port compose's
// Prometheus scrapes as wildfire-jvm, and keeps the server's wf name: laid
// over docker-compose.yml as `docker compose -f … -f …` lays it, it changes
// the wildfire service and nothing else.
func TestWildfireJMXOverride(t *testing.T) {
	vars := sentinels(t, Secrets())
	plain, _, err := loadProject(t, vars, allProfiles())
	if err != nil {
		t.Fatal(err)
	}
	jmx, _, err := loadProject(t, vars, allProfiles(), "wildfire-jmx.yml")
	if err != nil {
		t.Fatalf("with wildfire-jmx.yml: %v", err)
	}
	if got, want := names(jmx.Services), names(plain.Services); !slices.Equal(got, want) {
		t.Fatalf("wildfire-jmx.yml turns the services %v into %v", want, got)
	}
	for name, s := range jmx.Services {
		if name != "wildfire" && !reflect.DeepEqual(s, plain.Services[name]) {
			t.Errorf("wildfire-jmx.yml changes %s, want only wildfire", name)
		}
	}
	s := jmx.Services["wildfire"]
	if got := env(s, "WILDFIRE_JMX_PORT"); got != strconv.Itoa(composeDNSPort(t, "wildfire-jvm")) {
		t.Errorf("WILDFIRE_JMX_PORT %q is not where Prometheus scrapes wildfire-jvm", got)
	}
	aliases := s.Networks["default"].Aliases
	if !slices.Contains(aliases, "wf") || !slices.Contains(aliases, "wildfire-jvm") {
		t.Errorf("aliases %v: want wf and wildfire-jvm", aliases)
	}
	df, _ := os.ReadFile("Dockerfile")
	if !regexp.MustCompile(`jmx_prometheus_javaagent/1\.0\.1/jmx_prometheus_javaagent-1\.0\.1\.jar`).Match(df) ||
		!strings.Contains(string(df), "7d61f737fd661610ccc14aea79764faa1ea94a340cbc8f0029b3d2edea3d80c1") {
		t.Error("the Dockerfile must fetch the JMX exporter agent 1.0.1 from Maven Central and check its sha256")
	}
}

// A release package as compose/wildfire/entrypoint.sh expects one, with a
// start script shaped like the vendor's and a `java` that records how it
// was started.
func fakePackage(t *testing.T, base string) []byte {
	t.Helper()
	files := map[string]string{
		"config/wildfirechat.conf": "# Wildfire config\nport 1883\nhttp.admin.secret_key 123456\n" +
			"client.request_rate_limit 100\n#netty.epoll false\nmessage.max_queue 1024\nhttp.admin.rate_limit 10000\n",
		"config/log4j2.xml": "<configuration>\n  <loggers>\n    <root level=\"INFO\">\n    </root>\n  </loggers>\n</configuration>\n",
		"bin/wildfirechat.sh": "#!/bin/sh\ncd \"$(dirname \"$0\")\"\ncd ..\nHOME_DIR=`pwd`\nJAVA=java\n" +
			"#JAVA_OPTS=\"$JAVA_OPTS --add-opens java.base/java.lang=ALL-UNNAMED\"\n" +
			"JAVA_OPTS=\"$JAVA_OPTS -XX:+UseG1GC\"\n" +
			"$JAVA -server $JAVA_OPTS -Dwildfirechat.path=\"$HOME_DIR\" -cp \"$HOME_DIR/lib/*\" cn.wildfirechat.server.Server\n",
		"lib/moquette-broker-1.2.4.jar": "jar",
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range []string{"config/wildfirechat.conf", "config/log4j2.xml", "bin/wildfirechat.sh", "lib/moquette-broker-1.2.4.jar"} {
		mode := int64(0o644)
		if strings.HasPrefix(name, "bin/") {
			mode = 0o755
		}
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: base + name, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

type entrypointRun struct {
	home, out  string
	output     string
	err        error
	pid        int
	args, env  string
	conf, logx string
}

func runEntrypoint(t *testing.T, pkg []byte, env ...string) entrypointRun {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	r := entrypointRun{home: filepath.Join(dir, "home"), out: filepath.Join(dir, "out")}
	os.MkdirAll(r.out, 0o755)
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "java"), []byte("#!/bin/sh\necho $$ > \"$OUT/pid\"\nprintf '%s\\n' \"$@\" > \"$OUT/args\"\nenv > \"$OUT/env\"\n"), 0o755)
	pkgPath := filepath.Join(dir, "release.tar.gz")
	if pkg != nil {
		os.WriteFile(pkgPath, pkg, 0o644)
	}
	cmd := exec.Command("bash", "wildfire/entrypoint.sh")
	cmd.Env = append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "OUT=" + r.out,
		"IMBENCH_WILDFIRE_HOME=" + r.home, "IMBENCH_WILDFIRE_PACKAGE=" + pkgPath}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if r.err = cmd.Start(); r.err == nil {
		r.pid = cmd.Process.Pid
		r.err = cmd.Wait()
	}
	r.output = out.String()
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	r.args, r.env = read(filepath.Join(r.out, "args")), read(filepath.Join(r.out, "env"))
	r.conf, r.logx = read(filepath.Join(r.home, "config", "wildfirechat.conf")), read(filepath.Join(r.home, "config", "log4j2.xml"))
	if p := strings.TrimSpace(read(filepath.Join(r.out, "pid"))); p != "" {
		got, _ := strconv.Atoi(p)
		if got != r.pid {
			r.pid = -got // not exec'd: java is not the process compose signals
		}
	}
	return r
}

// The entrypoint unpacks the package, sets the seeds' settings and the
// secret, starts the JVM by exec (docker stop's SIGTERM reaches it) with
// the heap asked for, and prints the secret nowhere.
func TestWildfireEntrypointSetsTheBenchmarkConfig(t *testing.T) {
	const secret = "s3cr&t|with/odd\\chars"
	for _, base := range []string{"", "distribution-1.2.4/"} {
		r := runEntrypoint(t, fakePackage(t, base), "WILDFIRE_ADMIN_SECRET="+secret, "WILDFIRE_HEAP=3g")
		if r.err != nil {
			t.Fatalf("base %q: %v\n%s", base, r.err, r.output)
		}
		for _, line := range []string{"http.admin.secret_key " + secret, "client.request_rate_limit 1000000",
			"http.admin.rate_limit 1000000", "message.max_queue 100000", "netty.epoll true", "host 0.0.0.0", "port 1883"} {
			if strings.Count("\n"+r.conf, "\n"+line+"\n") != 1 {
				t.Errorf("base %q: config lacks exactly one %q:\n%s", base, line, r.conf)
			}
		}
		if strings.Contains(r.conf, "123456") || strings.Contains(r.conf, "#netty.epoll") {
			t.Errorf("base %q: the package's values survived:\n%s", base, r.conf)
		}
		if !strings.Contains(r.logx, `<root level="WARN">`) {
			t.Errorf("base %q: log4j2 root level not WARN:\n%s", base, r.logx)
		}
		for _, a := range []string{"-Xmx3g", "-Xms3g", "-XX:+UseG1GC", "--add-opens", "cn.wildfirechat.server.Server"} {
			if !strings.Contains(r.args, a+"\n") && !strings.Contains(r.args, a+" ") {
				t.Errorf("base %q: java started without %s:\n%s", base, a, r.args)
			}
		}
		if strings.Contains(r.args, "javaagent") {
			t.Errorf("base %q: the JMX agent is on by default", base)
		}
		if r.pid <= 0 {
			t.Errorf("base %q: java is not the entrypoint's process (exec missing): pid %d", base, r.pid)
		}
		if strings.Contains(r.output, secret) || strings.Contains(r.env, secret) || strings.Contains(r.args, secret) {
			t.Errorf("base %q: the secret shows in the output, the JVM's environment or its arguments", base)
		}
	}
}

func TestWildfireEntrypointJMXAgent(t *testing.T) {
	r := runEntrypoint(t, fakePackage(t, ""), "WILDFIRE_ADMIN_SECRET=x", "WILDFIRE_JMX_PORT=9404")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.output)
	}
	if !strings.Contains(r.args, "-javaagent:/opt/jmx/jmx_prometheus_javaagent.jar=9404:/opt/jmx/jmx.yml\n") {
		t.Errorf("no JMX agent on 9404:\n%s", r.args)
	}
	if !strings.Contains(r.args, "-Xmx2g\n") {
		t.Errorf("default heap is not 2g:\n%s", r.args)
	}
}

func TestWildfireEntrypointRefusesWhatIsMissing(t *testing.T) {
	for _, c := range []struct {
		pkg  []byte
		env  []string
		want string
	}{
		{fakePackage(t, ""), nil, "set WILDFIRE_ADMIN_SECRET"},
		{nil, []string{"WILDFIRE_ADMIN_SECRET=x"}, "set WILDFIRE_RELEASE"},
		{[]byte("not a tarball"), []string{"WILDFIRE_ADMIN_SECRET=x"}, "not a .tar.gz"},
	} {
		r := runEntrypoint(t, c.pkg, c.env...)
		if r.err == nil || !strings.Contains(r.output, c.want) {
			t.Errorf("want a refusal naming %q, got err %v:\n%s", c.want, r.err, r.output)
		}
	}
}
