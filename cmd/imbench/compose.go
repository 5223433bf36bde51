package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/imbench/imbench/internal/profile"
)

// With a Docker engine, the stack is compose/docker-compose.yml: the
// observability services, Grafana with provisioned dashboards, and either the
// reference target (profile reference) or the real OpenIM (profile openim).

const composeFile = "compose/docker-compose.yml"

// dockerAnswers reports whether a Docker engine (not just the client) is there.
func dockerAnswers() bool {
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
	cmd := exec.Command("docker", append([]string{"compose", "-f", composeFile}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// composeUp starts the stack with the target's compose profile, named as
// its folder under targets/.
func composeUp(target string) error {
	if os.Getenv("GRAFANA_ADMIN_PASSWORD") == "" {
		return badInput("set GRAFANA_ADMIN_PASSWORD: compose gives Grafana no default password")
	}
	if target == "reference" {
		secret, err := targetSecret(true)
		if err != nil {
			return err
		}
		os.Setenv("IMBENCH_TARGET_SECRET", secret)
	}
	if err := compose("--profile", target, "up", "-d", "--build", "--wait"); err != nil {
		return fmt.Errorf("docker compose up: %w", err)
	}
	fmt.Println("stack mode: compose; Grafana at http://127.0.0.1:3000 (user admin), Prometheus at http://127.0.0.1:9090")
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
