// Package wildfire is imbench's driver for Wildfire IM (野火IM): users,
// groups and chatrooms set up through the signed admin API, then one MQTT
// connection per user (wire/wildfire: CONNECT with the token's password,
// requests as encrypted QoS 1 PUBLISHes answered by PUBACKs with a result).
//
// Wildfire delivers by notify and pull (../shared/protocols/wildfire.md
// §5.6): the server numbers every message per receiving user, sends MN with
// that number, and the client pulls everything after the newest it holds.
// A message is counted as pushed when its number was notified before the
// pull brought it, so e2e latency is send → notify → pull; one the client
// found without a notify (a login's catch-up, or a notify the server never
// sent) is counted as pulled. A pull answer whose messages fill exactly
// the numbers between the request's and its current (the reference target,
// whose numbers are consecutive) gives each message its number; otherwise
// the message's uid is its number, as on a single real node (§14).
package wildfire
