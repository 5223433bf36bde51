// Package node runs a single-node Kubernetes on 127.0.0.1 as a test
// fixture, as kind does with containers, here with processes: etcd, the
// API server, the controller manager and the scheduler, then containerd and
// the kubelet in a mount namespace of their own. Everything it starts lives
// in its folder, under one cgroup and on loopback ports; Down stops it by
// PID and leaves no process, mount or cgroup. The host's kernel settings and
// cgroup mounts are never changed: the kubelet's /proc/sys writes land on
// files bound over those entries inside the node's namespace.
package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Cluster is the test cluster: its programs and its folder.
type Cluster struct {
	Bin string // kube-apiserver, kubelet, kubectl, containerd, ctr, … (make cluster-tools)
	Dir string // its state: certificates, data, logs, pids
}

// cgroupName is the cgroup every process of the cluster runs in, in each
// cgroup v1 hierarchy the host mounts.
const cgroupName = "imbench-cluster"

// component is one process of the cluster, in start order.
type component struct {
	name string
	args func(c Cluster) []string
}

var controlPlane = []component{
	{"etcd", func(c Cluster) []string {
		u := fmt.Sprintf("https://127.0.0.1:%d", etcdPort)
		p := fmt.Sprintf("http://127.0.0.1:%d", etcdPeerPort)
		k := c.Dir + "/pki/"
		return []string{"/usr/bin/etcd", "--name", "imbench", "--data-dir", c.Dir + "/etcd",
			"--listen-client-urls", u, "--advertise-client-urls", u, "--listen-peer-urls", p,
			"--initial-advertise-peer-urls", p, "--initial-cluster", "imbench=" + p,
			// Only the API server, by its client certificate: etcd holds the
			// run's Secret, and any local user reaches loopback.
			"--client-cert-auth", "--trusted-ca-file", k + "ca.crt", "--cert-file", k + "apiserver.crt", "--key-file", k + "apiserver.key"}
	}},
	{"kube-apiserver", func(c Cluster) []string {
		k := c.Dir + "/pki/"
		return []string{c.Bin + "/kube-apiserver", "--etcd-servers", fmt.Sprintf("https://127.0.0.1:%d", etcdPort),
			"--etcd-cafile", k + "ca.crt", "--etcd-certfile", k + "admin.crt", "--etcd-keyfile", k + "admin.key",
			"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(apiserverPort), "--advertise-address", "127.0.0.1",
			"--endpoint-reconciler-type", "none", "--tls-cert-file", k + "apiserver.crt", "--tls-private-key-file", k + "apiserver.key",
			"--client-ca-file", k + "ca.crt", "--service-account-issuer", "https://kubernetes.default.svc",
			"--service-account-signing-key-file", k + "sa.key", "--service-account-key-file", k + "sa.pub",
			"--service-cluster-ip-range", serviceCIDR, "--authorization-mode", "RBAC",
			"--kubelet-client-certificate", k + "admin.crt", "--kubelet-client-key", k + "admin.key",
			"--kubelet-preferred-address-types", "InternalIP"}
	}},
	{"kube-controller-manager", func(c Cluster) []string {
		return []string{c.Bin + "/kube-controller-manager", "--kubeconfig", c.Kubeconfig(), "--leader-elect=false",
			"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(controllerPort), "--root-ca-file", c.Dir + "/pki/ca.crt",
			"--service-cluster-ip-range", serviceCIDR}
	}},
	{"kube-scheduler", func(c Cluster) []string {
		return []string{c.Bin + "/kube-scheduler", "--kubeconfig", c.Kubeconfig(), "--leader-elect=false",
			"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(schedulerPort)}
	}},
}

// Kubeconfig is the cluster's admin kubeconfig.
func (c Cluster) Kubeconfig() string { return filepath.Join(c.Dir, "kubeconfig") }

func (c Cluster) pidFile(name string) string { return filepath.Join(c.Dir, "pids", name+".pid") }
func (c Cluster) logFile(name string) string { return filepath.Join(c.Dir, "logs", name+".log") }

// Up starts the cluster and waits until its node is Ready. Certificates
// are made once; etcd's data, the kubelet's and the runtime's state start
// afresh each time (the images stay).
func (c Cluster) Up(out io.Writer) error {
	if pids := c.running(); len(pids) > 0 {
		return fmt.Errorf("the cluster is already up (%s): make cluster-down first", strings.Join(pids, ", "))
	}
	if left := c.Leftovers(); len(left) > 0 {
		return fmt.Errorf("an earlier cluster left %s: make cluster-down first", strings.Join(left, "; "))
	}
	for _, p := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet", "kubectl", "containerd", "containerd-shim-runc-v2", "ctr"} {
		if _, err := os.Stat(filepath.Join(c.Bin, p)); err != nil {
			return fmt.Errorf("%s: not built (make cluster-tools)", filepath.Join(c.Bin, p))
		}
	}
	for _, port := range []int{etcdPort, etcdPeerPort, apiserverPort, kubeletPort, healthzPort, controllerPort, schedulerPort} {
		if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err != nil {
			return fmt.Errorf("port %d is taken: %v", port, err)
		} else {
			ln.Close()
		}
	}
	for _, d := range []string{"etcd", "kubelet", "containerd/state", "containerd/runc", "run", "pod-logs", "pids"} {
		if err := os.RemoveAll(filepath.Join(c.Dir, d)); err != nil {
			return err
		}
	}
	for _, d := range []string{"logs", "pids", "run", "cni", "kubelet", "containerd"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := (pki{filepath.Join(c.Dir, "pki")}).ensure(); err != nil {
		return err
	}
	kc, err := pki{filepath.Join(c.Dir, "pki")}.kubeconfig(fmt.Sprintf("https://127.0.0.1:%d", apiserverPort))
	if err != nil {
		return err
	}
	files := map[string]string{"kubeconfig": string(kc), "containerd.toml": c.containerdConfig(),
		"kubelet.yaml": c.kubeletConfig(), "cni/10-loopback.conflist": cniConfig}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(text), 0o600); err != nil {
			return err
		}
	}
	if err := makeCgroups(); err != nil {
		return err
	}
	started := time.Now()
	for _, comp := range controlPlane {
		if err := c.start(comp.name, comp.args(c), false); err != nil {
			return err
		}
		if comp.name == "etcd" {
			if err := waitPort(etcdPort, 30*time.Second); err != nil {
				return c.failed("etcd", err)
			}
		}
		if comp.name == "kube-apiserver" {
			if err := c.waitAPI(90 * time.Second); err != nil {
				return c.failed("kube-apiserver", err)
			}
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := c.start("node", []string{self, "node-namespace", "-bin", c.Bin, "-dir", c.Dir}, true, namespaceToken+"="+c.Dir); err != nil {
		return err
	}
	if err := c.waitReady(3 * time.Minute); err != nil {
		if _, alive := c.pid("node"); !alive {
			return c.failed("node", err)
		}
		return c.failed("kubelet", err)
	}
	fmt.Fprintf(out, "cluster: node %s Ready in %.1f s; KUBECONFIG=%s\n", NodeName, time.Since(started).Seconds(), c.Kubeconfig())
	return nil
}

// failed names a component that did not come up, with its log's tail.
func (c Cluster) failed(name string, err error) error {
	raw, _ := os.ReadFile(c.logFile(name))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return fmt.Errorf("%s: %v (make cluster-down stops what started; %s ends:\n  %s)", name, err, c.logFile(name), strings.Join(lines, "\n  "))
}

// start starts a process in its own session, in the cluster's cgroup,
// logging to its file, its PID in its pid file. newNS gives it a private
// mount namespace.
func (c Cluster) start(name string, argv []string, newNS bool, env ...string) error {
	log, err := os.Create(c.logFile(name))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), "PATH="+c.Bin+":/usr/sbin:/usr/bin:/sbin:/bin"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if newNS {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWNS
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := joinCgroup(name, cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		return err
	}
	if err := os.WriteFile(c.pidFile(name), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// Kubectl runs the cluster's kubectl and returns its output.
func (c Cluster) Kubectl(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig()}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

func (c Cluster) waitAPI(limit time.Duration) error {
	return poll(limit, func(ctx context.Context) error {
		_, err := c.Kubectl(ctx, "get", "--raw", "/readyz")
		return err
	})
}

// waitReady waits for the node to be Ready and the default namespace's
// service account to exist (pods are refused before it does).
func (c Cluster) waitReady(limit time.Duration) error {
	return poll(limit, func(ctx context.Context) error {
		if _, alive := c.pid("node"); !alive {
			return errStop{errors.New("the node's process ended")}
		}
		out, err := c.Kubectl(ctx, "get", "node", NodeName, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if err != nil {
			return err
		}
		if strings.TrimSpace(string(out)) != "True" {
			return errors.New("the node is not Ready")
		}
		_, err = c.Kubectl(ctx, "get", "serviceaccount", "default")
		return err
	})
}

// poll calls f every half second until it succeeds or limit passes.
func poll(limit time.Duration, f func(context.Context) error) error {
	end := time.Now().Add(limit)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := f(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if stop, ok := err.(errStop); ok {
			return stop.error
		}
		if time.Now().After(end) {
			return fmt.Errorf("not within %s: %w", limit, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// errStop ends a poll at once.
type errStop struct{ error }

func waitPort(port int, limit time.Duration) error {
	return poll(limit, func(context.Context) error {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			conn.Close()
		}
		return err
	})
}
