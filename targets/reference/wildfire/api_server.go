package wildfire

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	wire "github.com/imbench/imbench/wire/wildfire"
)

// health is GET /admin/health's result, from this process: its CPUs and
// load, the Go runtime's memory (max: what it got from the system; free
// and avail: what of it the heap and stacks do not use), the disk of its
// working directory.
func (a *api) health() []wire.HealthNode {
	var h wire.HealthNode
	h.Node = strconv.Itoa(DefaultNode)
	h.CPU.Cores = runtime.NumCPU()
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			h.CPU.Load, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.Memory.Max = int64(ms.Sys)
	h.Memory.Free = int64(ms.Sys - min(ms.Sys, ms.HeapInuse+ms.StackInuse))
	h.Memory.Avail = h.Memory.Free
	var st syscall.Statfs_t
	if syscall.Statfs(".", &st) == nil {
		bs := int64(st.Bsize)
		h.Disk.Space, h.Disk.Free, h.Disk.Usable = int64(st.Blocks)*bs, int64(st.Bfree)*bs, int64(st.Bavail)*bs
	}
	return []wire.HealthNode{h}
}
