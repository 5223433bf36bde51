package limit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// RunHook runs a user's shell command (a before-step, or a server's before
// its turn in a comparison) in its own process group, its output in
// logPath, with env (nil: this process's) and extra. Ten minutes at most.
func RunHook(ctx context.Context, command, logPath string, env []string, extra ...string) error {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Env = append(slices.Clone(env), extra...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("failed (%v): see %s", err, logPath)
	}
	return nil
}
