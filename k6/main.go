// Command k6 is k6 v1.8.1 with imbench's k6/x/im extension built in: the
// main.go xk6 would generate (k6cmd.Execute plus blank imports: the module and each protocol driver, which registers itself by name).
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	_ "github.com/imbench/imbench/load/runner"
	_ "github.com/imbench/imbench/load/openim"
	_ "github.com/imbench/imbench/load/wildfire"
	_ "github.com/imbench/imbench/load/wukongim"
)

func main() {
	k6cmd.Execute()
}
