// Wildfire group test (../shared/seeds/004_*, results in 003_* 3.x): 50
// senders write to 100 groups of 100: each group holds the 50 senders,
// 49 members of its own (no client: never online) and one watching phone
// in every group; 20 rounds as fast as acknowledged: 50 × 100 × 20 =
// 100,000 messages, 10,000,000 dispatches counting every member. The
// report: 74.6 s, 1,340 messages a second, 83.75 a core, 8,375 dispatches a
// core a second on 16 cores. Here every delivery to the online members (the
// other senders and the watcher) is verified.
// SCALE=1 is that size; SCALE scales the groups and the rounds (the default
// 0.05: 5 groups, 1 round).
import im from 'k6/x/im';
import { planKnobs } from '../lib/env.js';
import { scenario, integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'wildfire/group100',
  purpose: 'Group fan-out: senders shared by 100 groups of 100, one watcher in all',
  bodySize: 36,
  classes: [{
    kind: 'groups', groups: 100, members: 100, senders: 50, shared: true, watchers: 1,
    inFlight: 1, messages: 20,
  }],
  ...planKnobs(__ENV, { scale: 0.05 }),
});

const sc = scenario('group100', plan, { thresholds: integrity });
export const { options, setup, teardown, handleSummary } = sc;

export default function (run) {
  const s = sc.online(run);
  s.send();
  s.drain();
  s.close();
}
