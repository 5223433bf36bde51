package main

import (
	"os"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/load/catalog"
)

// `imbench scenarios`: the catalog (load/catalog).
func cmdScenarios(args []string) error {
	if len(args) > 0 {
		return badinput.Errorf("scenarios takes no arguments")
	}
	return catalog.List(os.Stdout)
}
