// WuKongIM benchmark, Send Rate Testing as wkstress really ran it
// (../shared/seeds/002_*; ../shared/protocols/wukongim.md §13): every group
// of one channel config has the SAME members, the first `subscriber.online`
// users of the online list and offline filler, so "100 groups × 100, one
// online each" is one online user writing to 100 groups of the same 100
// members: all 40,000 messages a second from a single connection, with no
// online receiver. wukongim/send is the test as the report states it (100
// senders, one per group). runbooks/wukongim.md compares the two.
// SCALE=1 is that size (20 million messages); the default 0.01 (one group,
// 2,000 messages at 400 a second) takes seconds. Like wkstress, each
// second's messages go out together at its start (pace: 'burst').
// size: 1 group, 2,000 messages at 400/s | SCALE=1: 40,000 msg/s from one connection, 20 million
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.01 });

export const plan = im.workload({
  name: 'wukongim/send-wkstress',
  purpose: 'Send rate as wkstress ran it: one connection writing to 100 groups of the same members',
  // no bodySize: the text is the verifier's header alone, in as many AES blocks as wkstress's
  classes: [{
    kind: 'groups', groups: count(100, S), members: 100, sameMembers: true, senders: 1,
    ratePerMinute: 24000, pace: 'burst', messages: count(200000, S),
  }],
  ...knobs,
});

// wkstress acknowledges each RECV as it reads it: no ack delay.
export const options = { thresholds: integrity, protocolOptions: { wukongim: { ackDelay: '0' } } };
