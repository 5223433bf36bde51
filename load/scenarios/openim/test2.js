// OpenIM stress report, Test 2 (../shared/seeds/000_*, 001_*): 50,000 users
// online with msgtest sending about 1,700 messages a second among them
// (lib/openim.js), while integration_test samples 100 users: 80 log in at
// once and 20 later, 3 super users befriend everyone, every user online
// creates 4 groups of 5, 100 messages to every friend and group, each of
// the 80 sending one every 1,500 ms (53 a second; the report: peak 54):
//   go run main.go -lgr 0.8 -imf -crg -ckgn -ckcon -sem -ckmsn
//                  -u 100 -su 3 -lg 0 -cg 4 -cgm 5 -sm 100 -gm 100 -msgitv 1500
// It reported 170,800 sampled messages, 100 % delivered, 0.202 s average,
// 3.641 s max; msggateway 210 % CPU and 2.1 GiB. Here every delivery of
// both programs is verified, not a sample.
// SCALE=1 is that size (50,100 users: more than one k6 process holds, run
// it with SEGMENTS); SCALE scales the online users (and with them
// msgtest's rate) and the messages per conversation, not the sample's
// pace. The default 0.02 (1,000 online, msgtest at 34 a second, 1,696
// sampled messages) sends for about 32 s.
// Most users here are msgtest's, which connect and send and do nothing
// else: the light login (the default here). IM_LOGIN=sdk logs every user,
// msgtest's included, in as openim-sdk-core does.
// size: 1,000 online, 1,696 sampled messages | SCALE=1: 50,100 users, 84,800 sampled messages, load at 1,700/s
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';
import { msgtestLoad } from '../lib/openim.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.02 });

const sampling = {
  kind: 'integration', users: 100, superUsers: 3, loginRatio: 0.8,
  largeGroups: 0, commonGroups: 4, commonGroupMembers: 5,
  singleMessages: count(100, S), groupMessages: count(100, S),
  senders: 80, intervalMs: 1500,
};

// The sampled users alone: how long they send, and the seed's figures.
export const sample = im.workload({ name: 'openim/test2-sample', bodySize: 128, classes: [sampling], ...knobs });

export const plan = im.workload({
  name: 'openim/test2',
  purpose: '50,000 users online under msgtest load, 100 sampled users verified',
  bodySize: 128,
  classes: [sampling, ...msgtestLoad(S, sample.seconds)],
  ...knobs,
});

export const options = { thresholds: integrity };
