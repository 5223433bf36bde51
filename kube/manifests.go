// Package kube runs a split run on a Kubernetes cluster: the target's
// secret as a Secret, a setup Job, an Indexed Job with one pod per segment,
// their results read back from the pods' logs, and every object removed at
// the end. It drives the cluster of the current kubeconfig context through
// kubectl. runbooks/kubernetes/ holds the same manifests in their
// reviewable form; a test holds the two equal.
package kube

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Spec is one distributed run: what every pod runs and where.
type Spec struct {
	RunID     string
	Namespace string
	Image     string
	Segments  int
	// Run is `imbench run`'s arguments common to the setup and the
	// segments: scenario, target, protocol, run id.
	Run []string
	// Env is the environment every pod gets (IM_* knobs and endpoints),
	// the secrets aside.
	Env map[string]string
	// SecretEnv is environment that goes into the run's Secret beside the
	// target's secret (credentials), read by the pods through secretKeyRef.
	SecretEnv map[string]string
	// StartAtMs is the segments' common clock (unix ms).
	StartAtMs int64
	// PromWrite and LogPush, where the pods send their series and log
	// lines ("" for none).
	PromWrite, LogPush string
	// HostNetwork runs the pods in the node's network (a test cluster on
	// one machine, whose target listens on loopback).
	HostNetwork bool
	// CPURequest, CPULimit and Memory size each segment pod ("" for none).
	CPURequest, CPULimit, Memory string
	// Deadline bounds the segments Job (seconds; 0: imbench's own bounds).
	Deadline int64
}

// Labels of every object a run creates: `kubectl delete -l` removes them.
const (
	LabelRunID     = "imbench/run-id"
	LabelComponent = "app.kubernetes.io/component"
	SecretKey      = "IM_SECRET"
	PodEnv         = "IMBENCH_POD" // read by load/runner
	resultsDir     = "/results"
	uid            = 10001 // the image's imbench user
)

// Name is a Kubernetes name for a run id: lowercase, '-' for '_'.
func Name(runID string) string {
	return strings.ToLower(strings.ReplaceAll(runID, "_", "-"))
}

// SecretName, SetupName and SegmentsName are the run's objects.
func SecretName(runID string) string   { return "imbench-target-" + Name(runID) }
func SetupName(runID string) string    { return "imbench-setup-" + Name(runID) }
func SegmentsName(runID string) string { return "imbench-seg-" + Name(runID) }

func labels(runID, component string) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "imbench", LabelComponent: component, LabelRunID: runID}
}

// Secret holds the target's admin secret, read by the pods through a
// secretKeyRef and never written into a Job.
func (s Spec) Secret(secret string) *corev1.Secret {
	data := map[string]string{SecretKey: secret}
	maps.Copy(data, s.SecretEnv)
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: s.meta(SecretName(s.RunID), "secret"),
		Type:       corev1.SecretTypeOpaque,
		StringData: data,
	}
}

// SetupJob registers the run's users and groups on the target once
// (`imbench run -setup-only`) and prints its setup record.
func (s Spec) SetupJob() *batchv1.Job {
	args := append(append([]string{"run"}, s.Run...), "-setup-only", "-split-into", strconv.Itoa(s.Segments),
		"-results", resultsDir, "-print-results")
	args = s.observed(args, false)
	job := s.job(SetupName(s.RunID), "setup", args, corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
	})
	job.Spec.ActiveDeadlineSeconds = ptr.To(int64(6 * 3600))
	return job
}

// SegmentsJob is the Indexed Job of the run's segments: pod i runs
// `imbench run -segment i/N` from the common clock, its progress lines as
// IM_PROGRESS says, and prints its partial summary at its end.
func (s Spec) SegmentsJob() *batchv1.Job {
	args := append(append([]string{"run"}, s.Run...),
		"-segment", "$(JOB_COMPLETION_INDEX)/"+strconv.Itoa(s.Segments),
		"-start-at", strconv.FormatInt(s.StartAtMs, 10), "-results", resultsDir, "-print-results")
	args = s.observed(args, true)
	res := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	if s.CPURequest != "" {
		res.Requests[corev1.ResourceCPU] = resource.MustParse(s.CPURequest)
	}
	if s.CPULimit != "" {
		res.Limits[corev1.ResourceCPU] = resource.MustParse(s.CPULimit)
	}
	if s.Memory != "" {
		res.Requests[corev1.ResourceMemory] = resource.MustParse(s.Memory)
		res.Limits[corev1.ResourceMemory] = resource.MustParse(s.Memory)
	}
	job := s.job(SegmentsName(s.RunID), "segment", args, res)
	n := int32(s.Segments)
	job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	job.Spec.Completions, job.Spec.Parallelism = &n, &n
	// A segment's pod that fails or is deleted is not replaced (a second
	// pod would log the same users in again on a clock already past), and
	// the other segments run to their end: the merge names the one missing.
	job.Spec.BackoffLimit = nil
	job.Spec.BackoffLimitPerIndex, job.Spec.MaxFailedIndexes = ptr.To(int32(0)), &n
	job.Spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
	if s.Deadline > 0 {
		job.Spec.ActiveDeadlineSeconds = ptr.To(s.Deadline)
	}
	pod := &job.Spec.Template.Spec
	pod.TerminationGracePeriodSeconds = ptr.To(int64(30))
	if !s.HostNetwork {
		// Each pod has its own ports: ~64,000 towards one gateway address.
		pod.SecurityContext.Sysctls = []corev1.Sysctl{{Name: "net.ipv4.ip_local_port_range", Value: "1024 65535"}}
	}
	pod.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelComponent: "segment", LabelRunID: s.RunID}}}}}}}
	return job
}

// observed adds where the pod sends its series and its log.
func (s Spec) observed(args []string, series bool) []string {
	if series && s.PromWrite != "" {
		args = append(args, "-prometheus-rw-url", s.PromWrite)
	}
	if s.LogPush != "" {
		args = append(args, "-log-push-url", s.LogPush)
	}
	return args
}

func (s Spec) meta(name, component string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels(s.RunID, component)}
}

func (s Spec) job(name, component string, args []string, res corev1.ResourceRequirements) *batchv1.Job {
	var env []corev1.EnvVar
	for _, k := range append([]string{SecretKey}, slices.Sorted(maps.Keys(s.SecretEnv))...) {
		env = append(env, corev1.EnvVar{Name: k, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: SecretName(s.RunID)}, Key: k}}})
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		env = append(env, corev1.EnvVar{Name: k, Value: s.Env[k]})
	}
	// The pod's name for its generator row in summary.json (a pod in the
	// node's network has the node's hostname).
	env = append(env, corev1.EnvVar{Name: PodEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}})
	meta := s.meta(name, component)
	tmeta := metav1.ObjectMeta{Labels: meta.Labels}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta,
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To(int32(0)), // a failed step is looked at, not retried behind the run's back
			// Gone an hour after its end where the run could not remove it
			// (imbench killed).
			TTLSecondsAfterFinished: ptr.To(int32(3600)),
			Template: corev1.PodTemplateSpec{ObjectMeta: tmeta, Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				HostNetwork:   s.HostNetwork,
				SecurityContext: &corev1.PodSecurityContext{
					RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(uid)), RunAsGroup: ptr.To(int64(uid)),
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
				Containers: []corev1.Container{{
					Name: component, Image: s.Image, ImagePullPolicy: corev1.PullIfNotPresent,
					Command: []string{"imbench"}, Args: args, Env: env, Resources: res,
					SecurityContext: &corev1.SecurityContext{
						Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					},
					VolumeMounts: []corev1.VolumeMount{{Name: "results", MountPath: resultsDir}},
				}},
				// The pod's files vanish with it: it prints what the run
				// needs (-print-results) and kubectl logs reads it back.
				Volumes: []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			}},
		},
	}
}
