// Command imbench-cluster runs the single-node Kubernetes the tests and a
// first distributed run use (kube/node): up, down, status, and image, which
// loads imbench's runner image into it. It runs from the project root.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/imbench/imbench/kube/node"
)

const usage = `usage: imbench-cluster <command> [flags]

  up       start the cluster on 127.0.0.1 and wait until its node is Ready
  down     stop every process of it by PID; leave no process, cgroup, mount or port
  status   what runs, and the node
  image    load imbench's runner image (compose/Dockerfile's runner stage, from .tools/bin/imbench) into the node
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	bin := fs.String("bin", ".tools/kubernetes/bin", "the cluster's programs (make cluster-tools)")
	dir := fs.String("dir", ".run/cluster", "the cluster's state")
	imbench := fs.String("imbench", ".tools/bin/imbench", "image: imbench's static binary")
	tag := fs.String("tag", "imbench.local/imbench:dev", "image: its name")
	fs.Parse(os.Args[2:])
	c := node.Cluster{Bin: abs(*bin), Dir: abs(*dir)}
	var err error
	switch os.Args[1] {
	case "up":
		if err = c.Up(os.Stdout); err != nil {
			err = fmt.Errorf("%w\ncluster: make cluster-down stops what started", err)
		}
	case "down":
		err = c.Down(os.Stdout)
	case "status":
		if !c.Status(os.Stdout) {
			os.Exit(1)
		}
	case "image":
		if err = c.LoadRunner(".", *imbench, *tag); err == nil {
			fmt.Printf("cluster: %s loaded (IMBENCH_IMAGE=%s)\n", *tag, *tag)
		}
	case "node-namespace": // not in the usage: Up starts the node so
		err = node.NodeNamespace(c)
	case "pause": // not in the usage: the pod sandbox's process
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
