// OpenIM stress report (Chinese), Test 3, 5万在线用户+5万大群
// (../shared/seeds/001_*): 50,000 users online under msgtest load
// (lib/openim.js), and 20 sampled users, 16 online at once and 4 later, in
// ten groups of 50,000 members with 500 online; each of the 16 sends 10
// messages to every group, one every 500 ms (32 a second):
//   go run main.go -lgr 0.8 -imf -crg -ckgn -ckcon -sem -ckmsn
//                  -u 20 -su 3 -lg 10 -cg 0 -cgm 5 -sm 0 -gm 10
// It reported 24,000 sampled messages (1,600 sent, each to the 15 other
// sampled users online), 100 % delivered, 0.022 s average, 1.664 s max.
// Here the ten groups have the same 50,000 members (one population, as
// the report's 100,000 registered users allow) and every delivery to the
// 500 online and the 4 late members is verified: 1,600 × 503.
// SCALE=1 is that size (100,000 users, 50,500 online: run it with
// SEGMENTS); SCALE scales the members and the online users (and with them
// msgtest's rate), not the sample's messages or pace. The default 0.02
// (1,000 members, 26 online) sends for 50 s; DURATION shortens it.
// Most users here are msgtest's, which connect and send and do nothing
// else: the light login (the default here). IM_LOGIN=sdk logs every user,
// msgtest's included, in as openim-sdk-core does.
// size: 1,000 members, 26 online, 1,600 messages | SCALE=1: 10 × 50,000 members, 500 online, 50,000 online in all
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';
import { msgtestLoad } from '../lib/openim.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.02 });

const groups = {
  kind: 'groups', groups: 10, members: count(50000, S, 21), sameMembers: true,
  senders: 16, late: 4, online: count(500 - 16, S, 0), totalRate: 32, messages: 10,
};

// The sampled groups alone: how long they send, and the seed's figures.
export const sample = im.workload({ name: 'openim/test3-zh-sample', bodySize: 128, classes: [groups], ...knobs });

export const plan = im.workload({
  name: 'openim/test3-zh',
  purpose: 'Ten 50,000-member groups, 500 online each, under msgtest load',
  bodySize: 128,
  classes: [groups, ...msgtestLoad(S, sample.seconds)],
  ...knobs,
});

export const options = { thresholds: integrity };
