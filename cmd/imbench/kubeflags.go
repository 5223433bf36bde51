package main

import (
	"flag"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/loopback"
	"github.com/imbench/imbench/internal/profile"
	"github.com/imbench/imbench/load/catalog"
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
		return badinput.Errorf("-on kubernetes needs the image its pods run: -image or IMBENCH_IMAGE (make cluster-up loads one into the test cluster)")
	case catalog.IsScriptPath(rc.scenario):
		return badinput.Errorf("-on kubernetes runs the scenarios its image holds (load/scenarios): %s is a file of this machine", rc.scenario)
	case rc.setupOnly || rc.segment.Split():
		return badinput.Errorf("-on kubernetes runs the whole split run: -setup-only and -segment are what its pods run")
	case rc.checkOnly:
		return badinput.Errorf("-check-only checks the target from this machine; on Kubernetes the setup pod checks it from the cluster before any load: run without -check-only")
	}
	for name, q := range map[string]string{"-pod-cpu": o.cpu, "-pod-cpu-limit": o.cpuLimit, "-pod-memory": o.memory} {
		if _, err := resource.ParseQuantity(q); q != "" && err != nil {
			return badinput.Errorf("%s %q: not a Kubernetes quantity (2, 500m, 1Gi)", name, q)
		}
	}
	if errs := validation.IsValidLabelValue(rc.runID); len(errs) > 0 {
		return badinput.Errorf("run id %q cannot label the run's Kubernetes objects: %s", rc.runID, strings.Join(errs, "; "))
	}
	if !o.hostNetwork {
		for name, e := range rc.endpoints {
			if loopback.Require(e) == nil {
				return badinput.Errorf("the target's %s endpoint %s is this machine's loopback, which a pod does not reach: give its address as the pods see it (%s), or -host-network on a cluster of this machine", name, e, profile.EnvName(name))
			}
		}
	}
	return nil
}
