// Package openim is imbench's OpenIM driver: it registers the protocol
// "openim" (register.go) and speaks it for a plan with the wire format of
// wire/openim. Files: register.go (options, preflight), driver.go (config,
// setup over REST), rest.go (the admin API client), login.go (the
// msggateway handshake), conn.go (a connection's life), requests.go
// (answers matched to requests), send.go, sync.go (max seqs and pulls),
// frames.go (pushes and answers decoded, once per frame: load/framecache),
// sdklogin.go (the SDK-faithful login, Options.Login "sdk").
package openim
