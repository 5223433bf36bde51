package main

import (
	"os"

	"github.com/imbench/imbench/internal/badinput"
	"github.com/imbench/imbench/internal/catalog"
)

// `imbench scenarios`: the catalog (internal/catalog).
func cmdScenarios(args []string) error {
	if len(args) > 0 {
		return badinput.Errorf("scenarios takes no arguments")
	}
	return catalog.List(os.Stdout)
}
