package catalog

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/imbench/imbench/internal/profile"
)

// List writes the catalog as `imbench scenarios` shows it: each
// scenario's seed, the protocol it speaks to the reference target, its
// sizes and purpose.
func List(out io.Writer) error {
	names, err := Names()
	if err != nil {
		return err
	}
	profiles, err := profile.Load("targets")
	if err != nil {
		return err
	}
	ref := profiles["reference"]
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SCENARIO\tWHAT\tPROTOCOL\tDEFAULT SIZE\tSCALE=1\tPURPOSE")
	for _, n := range names {
		info, err := Read(n)
		if err != nil {
			return err
		}
		proto, err := info.DefaultProtocol(ref.System, ref.Speaks())
		if err != nil {
			proto = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", info.Name, info.Title, proto, info.Default, info.Seed, info.Purpose)
	}
	fmt.Fprintln(w, "\nPROTOCOL is what it speaks to the reference target by default (PROTOCOL= picks another it carries);")
	fmt.Fprintln(w, "every file's header quotes its seed's setup and figures.")
	fmt.Fprintln(w, "make run-scenario SCENARIO=<scenario> [SCALE=] [RATE=] [DURATION=] [TARGET=] [PROTOCOL=]")
	return w.Flush()
}
