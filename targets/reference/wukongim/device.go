package wukongim

import (
	"hash/fnv"

	wire "github.com/imbench/imbench/wire/wukongim"
)

// The core holds one token per user and device, and one session per user
// and device, replacing an older session (kicked when its token differs,
// closed when not). WuKongIM's rules (wukongim.md §5) come out of that by
// how this front end numbers devices:
//
//   - a token is per uid, device flag and device level: /user/token stores
//     it under tokenDevice(flag, level) and removes the other level's, and a
//     login tries both, which tells the level;
//   - a slave connection's session device is its (flag, deviceID): many
//     connections of one device flag live side by side, and only a newer one
//     with the same deviceID replaces (closes) an older;
//   - a master connection's session device is its flag alone, its session
//     token its deviceID: a newer connection with another deviceID kicks the
//     older (DISCONNECT 12), one with the same deviceID closes it.
//
// The numbers stay clear of the small ones other front ends use.

func tokenDevice(flag, level uint8) int { return int(flag) | int(level)<<8 | 1<<16 }

const masterBase = 1 << 40

// sessionDevice is the core's device of a connection, and its session token.
func sessionDevice(flag, level uint8, deviceID string) (device int, token string) {
	if level == wire.DeviceLevelMaster {
		return masterBase | int(flag), deviceID
	}
	h := fnv.New64a()
	h.Write([]byte{flag})
	h.Write([]byte(deviceID))
	return int(h.Sum64()>>3 | 1<<61), ""
}
