// One workload for every server (make compare-servers, runbooks/compare-servers.md):
// what no vendor's report has, the same load on OpenIM, WuKongIM and Wildfire.
// One-to-one pairs and groups of 20, everyone online, two thirds of the
// messages in pairs; the rate is shared by the classes (RATE, a limit
// search's steps), each sender waiting for its answer before its next.
// A sender per 10 msg/s of the rate, so that the senders never hold a step
// back while the server answers quickly.
// size: 200 msg/s over 20 pairs and 10 groups of 20 (220 users) for 30 s | SCALE=1: 2,000 pairs and 1,000 groups
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.01 });
const rate = knobs.rate || 200;

export const plan = im.workload({
  name: 'compare/pairs-groups',
  purpose: 'The same workload on every server: pairs and groups of 20, everyone online',
  bodySize: 64,
  classes: [
    { kind: 'pairs', pairs: Math.max(count(2000, S), Math.ceil(rate / 15)), allOnline: true, totalRate: (rate * 2) / 3, duration: '30s' },
    { kind: 'groups', groups: Math.max(count(1000, S), Math.ceil(rate / 30)), members: 20, allOnline: true, totalRate: rate / 3, duration: '30s' },
  ],
  ...knobs,
});

export const options = {
  thresholds: integrity,
  limit: { objective: 'e2e_p99<1000,lost==0,late==0,unchecked==0', start: 200, step: '30s' },
};
