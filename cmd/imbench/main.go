// Command imbench is the CLI behind the Makefile: each command parses its
// flags and calls the package that does the work. `up`, `down` and
// `status` manage the stack (internal/stack); `run` checks a scenario's
// inputs and its target before any load, then runs it (load/runner), its
// metrics and log going where internal/stack/observe says, its live view served
// by report/live; `report`, `compare` and `merge` work on results (report/);
// `scenarios` lists the catalog (load/catalog); `bench` measures the
// generator (bench). It runs from the project root: targets/,
// load/scenarios, .tools/bin and .run are relative to it.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/imbench/imbench/internal/badinput"
)

const usage = `usage: imbench <command> [flags]

  up        start the native services (reference target), wait until healthy
  down      stop what up started
  status    show each service, its health and URL
  scenarios list the scenarios
  run       run a scenario: imbench run -scenario openim/test1 [-target reference] [-scale 0.5]
  limit     search the most load a server holds within an objective: imbench limit -scenario S [-slo 'e2e_p99<1000,lost==0']
  report    write results/<run>/report.md and report.html: imbench report [-run ID] [-refresh]
  merge     merge a split run's parts: imbench merge -run ID -segments N [-results results]
  compare   compare two runs: imbench compare -a ID -b ID [-threshold 10]; exit 3 if B is worse
  compare-servers  one workload on several servers side by side: imbench compare-servers -scenario S -servers servers.yaml [-rate R]
  side-by-side  one workload under two load tools, alternating, fresh server each: imbench side-by-side -tool a=CMD -tool b=CMD -server CMD -count URL#metric [-before CMD] [-rounds 5]
  side-by-side-page  docs/<name>.md from a side-by-side's JSON: imbench side-by-side-page -in results/<id>/side-by-side.json [-name N]
  clean-target  remove a run's users, groups and chatrooms from its target: imbench clean-target -run ID
  bench     measure the generator: imbench bench [-only density,baseline,delivery,distributed,flat]
  bench-page  docs/benchmark.md from a bench's JSON: imbench bench-page [-in results/bench/<time>.json]
  generate  rewrite the files made from code (dashboards/*.json, exporters/process-exporter.yml)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	code := 0
	switch os.Args[1] {
	case "up":
		err = cmdUp(os.Args[2:])
	case "down":
		err = cmdDown(os.Args[2:])
	case "status":
		err = cmdStatus(os.Args[2:])
	case "run":
		code, err = cmdRun(os.Args[2:])
	case "limit":
		code, err = cmdLimit(os.Args[2:])
	case "scenarios":
		err = cmdScenarios(os.Args[2:])
	case "generate":
		err = cmdGenerate(os.Args[2:])
	case "bench":
		err = cmdBench(os.Args[2:])
	case "bench-page":
		err = cmdBenchPage(os.Args[2:])
	case "bench-baseline-hold": // not in the usage: the bench's baseline (bench/baseline_client.go)
		err = cmdBenchBaselineHold(os.Args[2:])
	case "bench-floor": // not in the usage: the bench's floor (bench/floor.go)
		err = cmdBenchFloor(os.Args[2:])
	case "report":
		err = cmdReport(os.Args[2:])
	case "merge":
		code, err = cmdMerge(os.Args[2:])
	case "compare-servers":
		code, err = cmdCompareServers(os.Args[2:])
	case "compare":
		err = cmdCompare(os.Args[2:])
	case "side-by-side":
		code, err = cmdSideBySide(os.Args[2:])
	case "side-by-side-page":
		err = cmdSideBySidePage(os.Args[2:])
	case "clean-target":
		code, err = cmdCleanTarget(os.Args[2:])
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		err = badinput.Errorf("unknown command %q (imbench help lists them)", os.Args[1])
	}
	if err != nil {
		if !errors.Is(err, errRegression) {
			fmt.Fprintln(os.Stderr, "imbench:", err)
		}
		if badinput.Is(err) {
			os.Exit(2)
		}
		if errors.Is(err, errRegression) {
			os.Exit(3)
		}
		os.Exit(1)
	}
	os.Exit(code)
}
