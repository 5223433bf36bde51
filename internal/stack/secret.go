package stack

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// TargetSecret returns the reference target's secret, creating it (create)
// on the first `up`. It lives in .run/target.env, readable by the owner only.
func TargetSecret(create bool) (string, error) {
	path := filepath.Join(RunDir, "target.env")
	raw, err := os.ReadFile(path)
	if err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if v, ok := strings.CutPrefix(line, "IMBENCH_TARGET_SECRET="); ok && v != "" {
				return strings.TrimSpace(v), nil
			}
		}
	}
	if !create {
		return "", errors.New("the reference target has no secret here (" + path + "): run make up first, or give IM_SECRET (a stack started from another checkout keeps its own in that checkout's .run/target.env)")
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret := hex.EncodeToString(b)
	if err := os.MkdirAll(RunDir, 0o700); err != nil {
		return "", err
	}
	return secret, os.WriteFile(path, []byte("IMBENCH_TARGET_SECRET="+secret+"\n"), 0o600)
}
