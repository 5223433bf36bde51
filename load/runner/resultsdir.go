package runner

import (
	"os"

	"github.com/imbench/imbench/internal/badinput"
)

// CheckResultsDir proves a run can write its results under dir before any
// target is contacted: the folder is made if missing and a file written
// there and removed. A folder it cannot write is bad input.
func CheckResultsDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return badinput.Errorf("results folder %s cannot be made: %v", dir, err)
	}
	f, err := os.CreateTemp(dir, ".imbench-write-check-*")
	if err != nil {
		return badinput.Errorf("results folder %s is not writable: %v", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
