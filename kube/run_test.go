package kube

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What stops a run at once, what waits for its deadline, and how a
// segment's pod is said to have ended.
func TestPodStates(t *testing.T) {
	unscheduled := corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "0/1 nodes are available: 1 Insufficient cpu."}}}}
	if why := stuck(unscheduled, false); why != "" {
		t.Errorf("unscheduled before its deadline: %q (a cluster may add a node)", why)
	}
	if why := stuck(unscheduled, true); !strings.Contains(why, "cannot be scheduled: 0/1 nodes are available") {
		t.Errorf("unscheduled past its deadline: %q", why)
	}
	pulling := corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Image: "x:1",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "not found"}}}}}}
	if why := stuck(pulling, false); why != "image x:1: ErrImagePull: not found" {
		t.Errorf("an image that cannot be pulled: %q", why)
	}
	creating := corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}}}
	if why := stuck(creating, true); why != "" {
		t.Errorf("a container being created: %q", why)
	}
	exited := func(code int32) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{batchv1.JobCompletionIndexAnnotation: "2"}},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error"}}}}}}
	}
	if e := podEnding(exited(0)); e != "" {
		t.Errorf("exit 0: %q", e)
	}
	if e := podEnding(exited(137)); e != "its pod p exited 137 (Error)" {
		t.Errorf("exit 137: %q", e)
	}
	deleted := exited(0)
	deleted.DeletionTimestamp = &metav1.Time{}
	if e := podEnding(deleted); e != "its pod p was deleted while it ran" {
		t.Errorf("deleted: %q", e)
	}
	if i, ok := index(deleted); !ok || i != 2 || who(deleted, "segment") != "segment 2 (pod p)" {
		t.Errorf("index %d %v, %s", i, ok, who(deleted, "segment"))
	}
	failed := batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "FailedIndexes", Message: "Job has failed indexes"}}}}
	if done, why := ended(failed); !done || why != "FailedIndexes Job has failed indexes" {
		t.Errorf("failed: %v %q", done, why)
	}
	if done, _ := ended(batchv1.Job{}); done {
		t.Error("a Job without conditions has ended")
	}
}

// A pod's progress lines pass through whole, however its log is cut into
// writes; its other lines do not.
func TestProgressLinesPassThrough(t *testing.T) {
	var out strings.Builder
	p := &progressLines{out: &out, show: true}
	log := "imbench: run x: openim/test1 on reference\nimbench: 0:05 sending [segment 0:1/2] · online 4/4\nimbench-file summary-0:1_2.json 1/1 H4sI\nimbench: 0:10 sending [segment 0:1/2] · online 4/4\n"
	for i := 0; i < len(log); i += 7 {
		p.Write([]byte(log[i:min(len(log), i+7)]))
	}
	if want := "imbench: 0:05 sending [segment 0:1/2] · online 4/4\nimbench: 0:10 sending [segment 0:1/2] · online 4/4\n"; out.String() != want {
		t.Fatalf("passed %q", out.String())
	}
}
