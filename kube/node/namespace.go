package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/imbench/imbench/kube/image"
)

// hostDirs are host folders the node's runtime uses whatever its
// configuration: containerd's shim sockets and the kubelet's links to the
// containers' logs. Inside the node's namespace each gets a tmpfs of its
// own; a folder the host lacked is made for it and removed by Down.
var hostDirs = []string{"/run/containerd", "/var/log/containers", "/var/lib/cni"}

// namespaceToken is set by Up in the node's environment: NodeNamespace
// refuses to run without it, in the host's own mount namespace.
const namespaceToken = "IMBENCH_CLUSTER_NODE"

// NodeNamespace is the node: it runs in a mount namespace of its own
// (Up starts it so), binds the kernel settings the kubelet wants over
// their /proc/sys entries, starts containerd, loads the pause image and
// starts the kubelet, then waits; SIGTERM stops the kubelet, then
// containerd.
func NodeNamespace(c Cluster) (err error) {
	own, _ := os.Readlink("/proc/self/ns/mnt")
	parent, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid()))
	if os.Getenv(namespaceToken) != c.Dir || own == "" || own == parent {
		return errors.New("node-namespace runs only as imbench-cluster up starts it, in a mount namespace of its own")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the node's mounts private: %w", err)
	}
	for key, value := range kernelDefaults {
		f := filepath.Join(c.Dir, "sysctl", strings.ReplaceAll(key, "/", "."))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, []byte(value+"\n"), 0o644); err != nil {
			return err
		}
		if err := unix.Mount(f, "/proc/sys/"+key, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("binding over /proc/sys/%s: %w", key, err)
		}
	}
	made, err := os.OpenFile(filepath.Join(c.Dir, "made-dirs"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer made.Close()
	for _, d := range hostDirs {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return err
			}
			fmt.Fprintln(made, d) // as it is made: Down removes it whatever fails next
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", 0, "mode=0755"); err != nil {
			return fmt.Errorf("tmpfs on %s: %w", d, err)
		}
	}
	var started []*exec.Cmd
	defer func() {
		if err != nil { // what started goes with the node
			for _, p := range started {
				p.Process.Kill()
				p.Wait()
			}
		}
	}()
	containerd, err := c.child("containerd", c.Bin+"/containerd", "--config", c.Dir+"/containerd.toml")
	if err != nil {
		return err
	}
	started = append(started, containerd)
	if err := poll(30*time.Second, func(context.Context) error { _, err := os.Stat(c.socket()); return err }); err != nil {
		return fmt.Errorf("containerd: %w", err)
	}
	if err := c.importPause(); err != nil {
		return err
	}
	kubelet, err := c.child("kubelet", c.Bin+"/kubelet", "--config", c.Dir+"/kubelet.yaml", "--kubeconfig", c.Kubeconfig(),
		"--hostname-override", NodeName, "--root-dir", c.Dir+"/kubelet", "--cert-dir", c.Dir+"/kubelet/pki")
	if err != nil {
		return err
	}
	started = append(started, kubelet)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	exited := make(chan string, 2)
	go func() { kubelet.Wait(); exited <- "kubelet" }()
	go func() { containerd.Wait(); exited <- "containerd" }()
	select {
	case <-sig:
	case name := <-exited:
		fmt.Fprintf(os.Stderr, "node: %s exited; stopping the node\n", name)
	}
	for _, p := range []*exec.Cmd{kubelet, containerd} {
		p.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.Process.Kill()
		}
	}
	return nil
}

// child starts a process of the node, its output in its log, its PID in
// its pid file.
func (c Cluster) child(name string, argv ...string) (*exec.Cmd, error) {
	log, err := os.Create(c.logFile(name))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	log.Close()
	return cmd, os.WriteFile(c.pidFile(name), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
}

// importPause builds the pause image from this program and loads it.
func (c Cluster) importPause() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cfg, files, err := image.Pause(self)
	if err != nil {
		return err
	}
	return c.importImage(PauseImage, cfg, files)
}

// importImage writes an image archive and loads it into the node's
// runtime, where the kubelet finds it.
func (c Cluster) importImage(tag string, cfg image.Config, files []image.File) error {
	if err := os.MkdirAll(filepath.Join(c.Dir, "images"), 0o755); err != nil {
		return err
	}
	tar := filepath.Join(c.Dir, "images", strings.NewReplacer("/", "_", ":", "_").Replace(tag)+".tar")
	f, err := os.Create(tar)
	if err != nil {
		return err
	}
	if err := image.Write(f, tag, cfg, files); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd := exec.Command(c.Bin+"/ctr", "--address", c.socket(), "--namespace", "k8s.io", "images", "import", tar)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ctr images import %s: %v: %s", tar, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// LoadRunner loads imbench's runner image, made from bin and the
// repository at root, into the running node as tag.
func (c Cluster) LoadRunner(root, bin, tag string) error {
	if _, err := os.Stat(c.socket()); err != nil {
		return fmt.Errorf("the cluster is not up (make cluster-up): %w", err)
	}
	cfg, files, err := image.Runner(root, bin)
	if err != nil {
		return err
	}
	return c.importImage(tag, cfg, files)
}
