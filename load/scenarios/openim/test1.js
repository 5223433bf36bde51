// OpenIM stress report, Test 1 (../shared/seeds/000_*): 200 users, 100 log in
// at once and 100 later; 10 super users befriend everyone; 2 large groups of
// all users; every user online creates 2 groups of 5; 5 messages per friend
// and per group, 20 senders every 500 ms (40 msg/s). The seed's command:
//   go run main.go -lgr 0.5 -imf -crg -ckgn -ckcon -sem -ckmsn
//                  -u 200 -su 10 -lg 2 -cg 2 -cgm 5 -sm 5 -gm 5 -reg
// It reported 112,350 messages, 100 % delivered, 0.231 s average, 1.703 s max.
// IM_SCALE=1 is that size (about 8 minutes at the seed's 40 msg/s); the
// default 0.5 (100 users, 3 messages per conversation) takes about 2.
// integration_test runs on openim-sdk-core: its users log in as the SDK
// does (IM_LOGIN=sdk, the default here; light for the least a client does).
// size: 100 users, 2,760 messages | SCALE=1: 200 users, 16,450 messages at 40/s
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.integration({
  name: 'openim/test1',
  purpose: 'Message reliability and latency with a small number of users',
  users: 200, superUsers: 10, loginRatio: 0.5,
  largeGroups: 2, commonGroups: 2, commonGroupMembers: 5,
  singleMessages: 5, groupMessages: 5,
  senders: 20, intervalMs: 500,
  bodySize: 128,
  ...planKnobs(__ENV, { scale: 0.5 }),
});

export const options = { thresholds: integrity, protocolOptions: { openim: { login: 'sdk' } } };
