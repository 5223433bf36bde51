// Reconnect storm: no seed's test; the failure every IM report leaves out.
// 100 groups of 10 members, everyone online, 20 messages a second among
// them for 60 s; 20 s after sending began the target drops every
// connection at once (the reference target's POST /fault/storm; against a
// real server restart its gateways by hand at that moment, see
// runbooks/openim.md). Users come back with capped, jittered backoff
// (IM_RECONNECT_DELAY 1s doubling to IM_RECONNECT_CAP 10s) and pull what
// they missed: every acknowledged message must still arrive. The summary
// and report give the outage: users dropped, the time back to all online,
// reconnects per second, and the server's CPU during it.
// IM_STORM_AT moves the storm; IM_DURATION and IM_RATE size the load.
// size: 1,000 users, 1,200 messages, storm at 20 s | SCALE=1: -
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'openim/storm',
  purpose: 'Every connection dropped at once mid-run: time back to all online, nothing lost',
  bodySize: 128,
  classes: [{ kind: 'groups', groups: 100, members: 10, allOnline: true, ratePerMinute: 12, messages: 12 }],
  ...planKnobs(__ENV),
});

export const options = { thresholds: integrity, stormAt: '20s' };
