// Wildfire's group test (../shared/seeds/004_*, results in 003_* 3.x), as
// wfcstress runs it: `senders` users write to 100 groups of `members`; each
// group holds the senders, members of its own (no client: never online) and
// one watching phone in every group; `rounds` rounds as fast as
// acknowledged. SCALE scales the groups and the rounds.
import im from 'k6/x/im';
import { planKnobs } from './env.js';

export function groupTest(name, members, senders, rounds) {
  return im.workload({
    name: `wildfire/${name}`,
    purpose: `Group fan-out: senders shared by 100 groups of ${members}, one watcher in all`,
    bodySize: 36,
    classes: [{
      kind: 'groups', groups: 100, members, senders, shared: true, watchers: 1, inFlight: 1, messages: rounds,
    }],
    ...planKnobs(__ENV, { scale: 0.05 }),
  });
}
