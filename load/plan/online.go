package plan

import (
	"encoding/json"
	"fmt"
	"time"
)

// Online is users of their own who log in, stay online for the whole test
// and send nothing: the load of a seed's "N users online" beside the users
// it measures (OpenIM's msgtest holding 50,000 while integration_test
// samples 100).
type Online struct {
	Kind  string `json:"kind"`
	Users int    `json:"users"`
}

func init() {
	RegisterKind("online", func(raw json.RawMessage, scale float64) (Class, error) {
		var o Online
		if err := strict(raw, &o); err != nil {
			return nil, err
		}
		if o.Users < 1 {
			return nil, fmt.Errorf("users must be at least 1, got %d", o.Users)
		}
		o.Users = scaled(o.Users, scale, 1)
		return &o, nil
	})
}

func (o *Online) users() int                { return o.Users }
func (o *Online) rate() float64             { return 0 }
func (o *Online) setRate(float64)           {}
func (o *Online) setDuration(time.Duration) {}

func (o *Online) build(b *builder, base uint32) (*Stream, error) {
	for u := range uint32(o.Users) {
		b.p.Login[base+u] = Immediate
	}
	return newStream(nil), nil
}
