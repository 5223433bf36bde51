// A workload that is no seed's test, stated with im.workload: three classes
// on users of their own, run side by side over OpenIM's protocol.
//   - 50 groups of 40 members: one sender, 5 receivers online, the other 34
//     registered but never online; 30 messages a minute per group;
//   - 200 one-to-one pairs whose receivers are offline while messages are
//     sent, then log in and pull them; 6 messages a minute per pair;
//   - one pair sending as fast as the server acknowledges, 4 in flight.
// Every delivery to a user who is online, or logs in later, is verified.
// IM_DURATION (e.g. 10m) sends for that long instead of the message counts;
// IM_RATE sets the open classes' total rate, each keeping its share;
// IM_MIX_CLOSED is the closed-loop pair's messages in flight (default 4; 0
// leaves the pair out, so that every message goes at the set rate).
// size: 2,402 users, 900 messages | SCALE=1: -
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

const CLOSED = Number(__ENV.IM_MIX_CLOSED ?? 4);

export const plan = im.workload({
  name: 'openim/mix',
  purpose: 'Groups with few members online, pairs with offline receivers, one closed-loop pair',
  bodySize: 128,
  classes: [
    { kind: 'groups', groups: 50, members: 40, online: 5, ratePerMinute: 30, messages: 6 },
    { kind: 'pairs', pairs: 200, lateShare: 1, ratePerMinute: 6, messages: 2 },
    ...(CLOSED > 0 ? [{ kind: 'pairs', pairs: 1, allOnline: true, inFlight: CLOSED, messages: 200 }] : []),
  ],
  ...planKnobs(__ENV),
});

export const options = { thresholds: integrity };
