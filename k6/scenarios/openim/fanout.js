// Group fan-out at a fixed rate: IM_USERS users (default 200), all online,
// all in one group; each sends IM_MESSAGES texts to it (default 10), at
// IM_RATE messages per second over all of them. Every message is verified at
// every other member, so deliveries are messages × (users − 1): the load of
// WuKongIM's receive test and Wildfire's group tests, and what `make bench`
// measures generator CPU per verified delivery with.
import im from 'k6/x/im';
import exec from 'k6/execution';
import { target, planKnobs, vus, runOptions, tags } from '../lib/env.js';

const VUS = vus(__ENV);
const tgt = im.target(target(__ENV));

export const plan = im.integration({
  name: 'openim/fanout',
  purpose: 'Group fan-out: every message to every member, verified',
  users: Number(__ENV.IM_USERS || 200), superUsers: 0, loginRatio: 1,
  largeGroups: 1, commonGroups: 0, singleMessages: 0,
  groupMessages: Number(__ENV.IM_MESSAGES || 10),
  rate: 50,
  bodySize: 128,
  ...planKnobs(__ENV),
});

export const options = {
  tags: tags(__ENV),
  scenarios: { fanout: { executor: 'per-vu-iterations', vus: VUS, iterations: 1, maxDuration: '2h' } },
  setupTimeout: '30m',
  teardownTimeout: '5m',
  thresholds: { im_lost: ['count==0'], im_corrupted: ['count==0'] },
};

export function setup() {
  return im.setup(plan, tgt, runOptions(__ENV, VUS));
}

export default function (run) {
  const s = im.session(run || im.attach(plan, tgt, runOptions(__ENV, VUS)));
  const online = s.login('immediate');
  if (online.attempted > 0 && online.online === 0) {
    exec.test.abort(`no user could log in: ${online.first_error}`);
  }
  s.send();
  s.drain();
  s.close();
}

export function teardown(run) {
  im.finish(run);
}

export function handleSummary(data) {
  return im.summary(data);
}
