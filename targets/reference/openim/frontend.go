package openim

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/imbench/imbench/targets/reference/core"
)

// FrontEnd is OpenIM's protocol as a server process starts it: the REST API
// where the core is, the gateway where connections are, and OpenIM's series
// on the process's registry.
type FrontEnd struct {
	Metrics *Metrics
	Log     *slog.Logger
}

// New registers OpenIM's series on m.
func New(m *core.Metrics, log *slog.Logger) *FrontEnd {
	return &FrontEnd{Metrics: NewMetrics(m), Log: log}
}

// API serves openim-api's routes over c.
func (f *FrontEnd) API(c *core.Core) http.Handler { return NewAPI(c, f.Metrics) }

// Gateway serves msggateway over b; readTimeout 0 keeps PongWait.
func (f *FrontEnd) Gateway(b core.Backend, readTimeout time.Duration) http.Handler {
	gw := NewGateway(b, f.Metrics, f.Log)
	if readTimeout > 0 {
		gw.ReadTimeout = readTimeout
	}
	return gw
}
