// Package exporters holds the exporters' configuration; this test proves
// process-exporter.yml's groups match real running processes.
package exporters

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func launch(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "IMBENCH_TARGET_SECRET=x")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

func TestGroupsMatchRunningProcesses(t *testing.T) {
	tools := os.Getenv("IMBENCH_TOOLS")
	if tools == "" {
		tools, _ = filepath.Abs("../.tools/bin")
	}
	for _, bin := range []string{"redis-server", "prometheus-process-exporter", filepath.Join(tools, "imbench"), filepath.Join(tools, "imbench-target")} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is missing: run `make test`, which installs and builds it", bin)
		}
	}
	launch(t, "redis-server", "--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	api, ws := fmt.Sprintf("127.0.0.1:%d", freePort(t)), fmt.Sprintf("127.0.0.1:%d", freePort(t))
	port := func() string { return fmt.Sprintf("127.0.0.1:%d", freePort(t)) }
	launch(t, filepath.Join(tools, "imbench-target"), "-api", api, "-ws", ws, "-metrics", port(), "-wukongim-api", port(),
		"-wukongim-tcp", port(), "-wukongim-ws", port(), "-wildfire-admin", port(), "-wildfire-mqtt", port())
	// A JVM's comm is `java`: the wildfire group finds Wildfire's server by
	// its main class on the command line. A shell named java stands in for
	// it (`; exit 0` keeps the shell from exec'ing sleep in its place).
	java := filepath.Join(t.TempDir(), "java")
	if err := copyFile("/bin/sh", java); err != nil {
		t.Fatal(err)
	}
	launch(t, java, "-c", "sleep 60; exit 0", "cn.wildfirechat.server.Server")
	// The generator: imbench run holding one user online.
	script := filepath.Join(t.TempDir(), "idle.js")
	os.WriteFile(script, []byte("import im from 'imbench';\nexport const plan = im.workload({ name: 'idle', runId: __ENV.IM_RUN_ID, "+
		"classes: [{ kind: 'online', users: 1 }] });\nexport const options = { hold: '60s' };\n"), 0o644)
	gen := exec.Command(filepath.Join(tools, "imbench"), "run", "-q", "-scenario", script, "-results", t.TempDir())
	gen.Dir = ".."
	gen.Env = append(os.Environ(), "IM_SECRET=x", "IM_API_URL=http://"+api, "IM_WS_URL=ws://"+ws, "IMBENCH_NO_OBSERVE=1", "IM_LIVE_ADDR=")
	if err := gen.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gen.Process.Kill(); gen.Wait() })
	pe := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	launch(t, "prometheus-process-exporter", "-web.listen-address="+pe, "-config.path=process-exporter.yml", "-threads=false")

	want := map[string]bool{"redis": false, "imbench-target": false, "imbench": false, "observability": false, "wildfire": false}
	line := regexp.MustCompile(`^namedprocess_namegroup_num_procs\{groupname="([^"]+)"\} (\d+)`)
	deadline := time.Now().Add(20 * time.Second)
	var seen map[string]int
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		resp, err := http.Get("http://" + pe + "/metrics")
		if err != nil {
			continue
		}
		seen = map[string]int{}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if m := line.FindStringSubmatch(sc.Text()); m != nil {
				seen[m[1]], _ = strconv.Atoi(m[2])
			}
		}
		resp.Body.Close()
		done := true
		for g := range want {
			done = done && seen[g] > 0
		}
		if done {
			break
		}
	}
	for g := range want {
		if seen[g] < 1 {
			t.Errorf("group %q matched no process (groups seen: %v)", g, seen)
		}
	}
	// The database and broker groups claim what runs under their names and
	// nothing else (a real Kafka may run beside the tests).
	for g, n := range map[string]int{"mongo": running(t, "mongod", ""), "mysql": running(t, "mysqld", "") + running(t, "mariadbd", ""),
		"kafka": running(t, "", "kafka.Kafka")} {
		if seen[g] != n {
			t.Errorf("group %s matched %d processes, %d run here", g, seen[g], n)
		}
	}
}

// running counts this machine's processes named comm, or whose command
// line holds arg.
func running(t *testing.T, comm, arg string) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	n := 0
	for _, d := range dirs {
		c, _ := os.ReadFile(d + "/comm")
		cmd, _ := os.ReadFile(d + "/cmdline")
		if (comm != "" && strings.TrimSpace(string(c)) == comm) || (arg != "" && strings.Contains(string(cmd), arg)) {
			n++
		}
	}
	return n
}

func copyFile(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, raw, 0o755)
}
