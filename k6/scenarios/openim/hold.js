// Idle holding: IM_USERS users (default 1,000) log in over OpenIM's real
// protocol and stay online, heartbeating, for IM_HOLD (default 60s; longer
// than the gateway's 30 s read deadline, so only heartbeats keep them), then
// log out. No messages. What `make bench` measures generator memory and CPU
// per online user with, and what the seeds' "N users online" loads are.
import im from 'k6/x/im';
import exec from 'k6/execution';
import { target, planKnobs, vus, runOptions, tags } from '../lib/env.js';

const VUS = vus(__ENV);
const tgt = im.target(target(__ENV));
const HOLD = __ENV.IM_HOLD || '60s';

export const plan = im.integration({
  name: 'openim/hold',
  purpose: 'Users online at once, kept alive by heartbeats',
  users: Number(__ENV.IM_USERS || 1000), superUsers: 0, loginRatio: 1,
  largeGroups: 0, commonGroups: 0, singleMessages: 0, groupMessages: 0,
  rate: 1,
  ...planKnobs(__ENV),
});

export const options = {
  tags: tags(__ENV),
  scenarios: { hold: { executor: 'per-vu-iterations', vus: VUS, iterations: 1, maxDuration: '2h' } },
  setupTimeout: '30m',
  teardownTimeout: '5m',
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
  s.hold(HOLD);
  s.close();
}

export function teardown(run) {
  im.finish(run);
}

export function handleSummary(data) {
  return im.summary(data);
}
