package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// Kubectl drives the cluster of the current kubeconfig context (or
// Kubeconfig's), in one namespace.
type Kubectl struct {
	Bin        string // kubectl's path ("kubectl" from PATH when empty)
	Kubeconfig string
	Namespace  string
}

func (k Kubectl) command(ctx context.Context, args ...string) *exec.Cmd {
	bin := k.Bin
	if bin == "" {
		bin = "kubectl"
	}
	var pre []string
	if k.Kubeconfig != "" {
		pre = append(pre, "--kubeconfig", k.Kubeconfig)
	}
	if k.Namespace != "" {
		pre = append(pre, "--namespace", k.Namespace)
	}
	cmd := exec.CommandContext(ctx, bin, append(pre, args...)...)
	cmd.WaitDelay = 5 * time.Second // a credential plugin holding kubectl's output open
	return cmd
}

// run runs kubectl and returns its output; an error carries its stderr.
func (k Kubectl) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := k.command(ctx, append([]string{"--request-timeout=60s"}, args...)...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, fmt.Errorf("kubectl %s: %s", strings.Join(args[:min(2, len(args))], " "), msg)
	}
	return out, nil
}

// Create creates the objects.
func (k Kubectl) Create(ctx context.Context, objs ...any) error {
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if _, err := k.run(ctx, bytes.NewReader(raw), "create", "-f", "-"); err != nil {
			return err
		}
	}
	return nil
}

// Get decodes `kubectl get what -o json` into v.
func (k Kubectl) Get(ctx context.Context, v any, what ...string) error {
	out, err := k.run(ctx, nil, append(append([]string{"get"}, what...), "-o", "json")...)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// CurrentNamespace is the namespace kubectl works in: the given one, else the
// current context's, else "default".
func (k Kubectl) CurrentNamespace(ctx context.Context) (string, error) {
	if k.Namespace != "" {
		return k.Namespace, nil
	}
	out, err := k.run(ctx, nil, "config", "view", "--minify", "-o", "jsonpath={..namespace}")
	if err != nil {
		return "", err
	}
	if ns := strings.TrimSpace(string(out)); ns != "" {
		return ns, nil
	}
	return "default", nil
}

// DeleteRun removes every object labelled with the run id and waits until
// they, and their pods, are gone.
func (k Kubectl) DeleteRun(ctx context.Context, runID string) error {
	sel := LabelRunID + "=" + runID
	_, err := k.run(ctx, nil, "delete", "jobs,pods,secrets", "-l", sel, "--cascade=foreground", "--wait=true", "--ignore-not-found", "--grace-period=5")
	return err
}

// Left lists what the namespace still holds of the run.
func (k Kubectl) Left(ctx context.Context, runID string) ([]string, error) {
	out, err := k.run(ctx, nil, "get", "jobs,pods,secrets", "-l", LabelRunID+"="+runID, "-o", "name")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}
