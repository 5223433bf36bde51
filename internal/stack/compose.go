package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	composefile "github.com/imbench/imbench/compose"
	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/profile"
)

// With a Docker engine, the stack is compose/docker-compose.yml: the
// observability services (Prometheus, VictoriaLogs, the exporters), Grafana
// with provisioned dashboards, and the target's profile (reference, openim,
// wukongim, wildfire); profile runner is imbench itself, for run.

// ComposeFile is the compose stack, relative to the project root.
const ComposeFile = "compose/docker-compose.yml"

// DockerAnswers reports whether a Docker engine (not just the client) is there.
func DockerAnswers() bool {
	if os.Getenv("IMBENCH_NATIVE") == "1" {
		return false
	}
	if _, err := exec.LookPath("docker"); err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, "docker", "info").Run() == nil
}

func compose(args ...string) error {
	cmd := exec.Command("docker", append([]string{"compose", "-f", ComposeFile}, args...)...)
	cmd.Env = ComposeEnv()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// ComposeEnv is the environment with every profile's variable present:
// Compose interpolates the services of every profile (docker/compose#11977),
// and one unset would print a warning per variable. Those of the profiles
// not started are passed empty (composeUp has checked the started one's), so
// no secret gets a value it was not given.
func ComposeEnv() []string {
	env := os.Environ()
	for _, v := range composefile.Secrets() {
		if _, ok := os.LookupEnv(v); !ok {
			env = append(env, v+"=")
		}
	}
	return env
}

// composeUp starts the stack with the target's compose profile, named as
// its folder under targets/.
func composeUp(target string) error {
	// Before anything starts: the secrets this profile needs, all named in
	// one line (the file has no defaults; compose/env.go lists them).
	if err := composefile.Check(target, os.Getenv); err != nil {
		return badinput.Errorf("%v", err)
	}
	if target == "reference" {
		secret, err := TargetSecret(true)
		if err != nil {
			return err
		}
		os.Setenv("IMBENCH_TARGET_SECRET", secret)
	}
	if err := compose("--profile", target, "up", "-d", "--build", "--wait"); err != nil {
		return fmt.Errorf("docker compose up: %w", err)
	}
	fmt.Println("stack mode: compose; Grafana at http://127.0.0.1:3000 (user admin), Prometheus at http://127.0.0.1:9090, VictoriaLogs at http://127.0.0.1:9428/select/vmui/")
	return nil
}

func composeDown() error { return composeAll("down") }

func composeStatus() error { return composeAll("ps") }

// composeAll runs a compose command over every target's profile.
func composeAll(cmd string) error {
	profiles, err := profile.Load("targets")
	if err != nil {
		return err
	}
	var args []string
	for _, name := range profile.Names(profiles) {
		args = append(args, "--profile", name)
	}
	return compose(append(args, cmd)...)
}
