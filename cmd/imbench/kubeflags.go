package main

import (
	"flag"
	"os"
	"time"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/catalog"
)

// kubeOptions are a run's -on kubernetes settings.
type kubeOptions struct {
	on, kubeconfig, namespace, image string
	cpu, cpuLimit, memory            string
	hostNetwork                      bool
	lead                             time.Duration
}

func kubeFlags(fs *flag.FlagSet) *kubeOptions {
	o := &kubeOptions{}
	fs.StringVar(&o.on, "on", "here", "where the segments run: here (processes of this machine) or kubernetes (an Indexed Job's pods in the current kubeconfig context)")
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "-on kubernetes: the kubeconfig (default: kubectl's)")
	fs.StringVar(&o.namespace, "namespace", "", "-on kubernetes: the namespace (default: the context's)")
	fs.StringVar(&o.image, "image", os.Getenv("IMBENCH_IMAGE"), "-on kubernetes: the image the pods run (compose/Dockerfile's runner stage)")
	fs.StringVar(&o.cpu, "pod-cpu", "", "-on kubernetes: each segment pod's CPU request, e.g. 2")
	fs.StringVar(&o.cpuLimit, "pod-cpu-limit", "", "-on kubernetes: each segment pod's CPU limit (a quota the generator may be held back by)")
	fs.StringVar(&o.memory, "pod-memory", "", "-on kubernetes: each segment pod's memory request and limit, e.g. 1Gi")
	fs.BoolVar(&o.hostNetwork, "host-network", false, "-on kubernetes: pods in the node's network (a cluster on this machine whose target listens on loopback)")
	fs.DurationVar(&o.lead, "start-in", 20*time.Second, "-on kubernetes: how long after the setup the segments start together, for every pod to be scheduled and started")
	return o
}

// onKube reports whether the run's segments are a cluster's pods.
func (rc *runConfig) onKube() bool { return rc.kube != nil && rc.kube.on == "kubernetes" }

// check refuses what cannot run on Kubernetes before anything is created.
func (o *kubeOptions) check(rc *runConfig) error {
	switch o.on {
	case "here":
		return nil
	case "kubernetes":
	default:
		return badinput.Errorf("-on %q: want here or kubernetes", o.on)
	}
	switch {
	case rc.segments < 2:
		return badinput.Errorf("-on kubernetes runs a split run: give -segments 2 or more (SEGMENTS=)")
	case o.image == "":
		return badinput.Errorf("-on kubernetes needs the image its pods run: -image or IMBENCH_IMAGE (make cluster-image loads one into the test cluster)")
	case catalog.IsScriptPath(rc.scenario):
		return badinput.Errorf("-on kubernetes runs the scenarios its image holds (load/scenarios): %s is a file of this machine", rc.scenario)
	case rc.setupOnly || rc.segment.Split():
		return badinput.Errorf("-on kubernetes runs the whole split run: -setup-only and -segment are what its pods run")
	}
	return nil
}

