package kube

import (
	"bytes"
	"strings"

	"sigs.k8s.io/yaml"
)

// RunbookDir holds the manifests a distributed run creates, as reviewable
// files with placeholders (runbooks/kubernetes.md); `imbench generate`
// writes them from Example and a test holds them equal.
const RunbookDir = "runbooks/kubernetes"

// exampleRunID stands for ${IM_RUN_ID}: lowercase letters and digits, the
// same as a run id and as a Kubernetes name.
const exampleRunID = "exampleimbenchrun"

// Example is the runbook's run: OpenIM's 100,000 users held over 6 pods,
// its values the placeholders envsubst fills.
func Example() Spec {
	return Spec{
		RunID: exampleRunID, Image: "${IMBENCH_IMAGE}", Segments: 6,
		Run: []string{"-scenario", "openim/hold", "-target", "openim", "-protocol", "openim", "-run-id", exampleRunID},
		Env: map[string]string{"IM_USERS": "100000", "IM_HOLD": "10m", "IM_LOGIN_WINDOW": "3m",
			"IM_API_URL": "${IM_API_URL}", "IM_WS_URL": "${IM_WS_URL}", "IM_ALLOW_REMOTE": "1", "IM_PROGRESS": "10s"},
		StartAtMs: 1, PromWrite: "${PROMETHEUS_RW_URL}", LogPush: "${LOG_PUSH_URL}",
		// Sized for up to 20,000 users a pod: 100,000 over 6 is 16,667.
		CPURequest: "2", Memory: "2Gi", Deadline: 7200,
	}
}

// RunbookManifests are Example's objects as the runbook's files.
func RunbookManifests() (map[string][]byte, error) {
	s := Example()
	out := map[string][]byte{}
	for name, obj := range map[string]any{"secret.yaml": s.Secret("${IM_SECRET}"), "setup-job.yaml": s.SetupJob(), "segments-job.yaml": s.SegmentsJob()} {
		raw, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		text := strings.NewReplacer(exampleRunID, "${IM_RUN_ID}", `- "1"`+"\n", `- "${IM_START_AT}"`+"\n").Replace(string(raw))
		var b bytes.Buffer
		b.WriteString("# Written by `imbench generate` from kube/manifests.go: what `imbench run -on kubernetes`\n")
		b.WriteString("# creates for a run, here OpenIM's 100,000 users held over 6 pods. Fill the ${...}\n")
		b.WriteString("# placeholders with envsubst to apply it by hand (runbooks/kubernetes.md).\n")
		b.WriteString(text)
		out[name] = b.Bytes()
	}
	return out, nil
}
