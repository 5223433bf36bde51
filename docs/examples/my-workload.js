// A workload of one's own (docs/workloads.md walks through it): 30
// one-to-one pairs whose receivers log in after the sending and pull what
// they missed, 5 groups of 40 members with half of them online, and a
// chatroom of 100, sending for 60 s. It runs over any of the three
// protocols; OpenIM has no chatrooms, so there the room is left out.
//
//   imbench run -scenario docs/examples/my-workload.js -protocol wukongim
//   make run-scenario SCENARIO=$PWD/docs/examples/my-workload.js SCALE=0.2 DURATION=10s
import im from 'imbench';
import { planKnobs } from 'imbench/env';
import { integrity } from 'imbench/scenario';

/** @type {import('imbench').ChatroomClass} */
const room = { kind: 'chatroom', rooms: 1, members: 100, senders: 5, rate: 2 };

export const plan = im.workload({
  name: 'mine',
  purpose: 'pairs with late receivers, groups half online, a chatroom',
  duration: '60s',
  classes: [
    { kind: 'pairs', pairs: 30, lateShare: 1, ratePerMinute: 30 },
    { kind: 'groups', groups: 5, members: 40, onlineShare: 0.5, rate: 1 },
    ...(__ENV.IM_PROTOCOL === 'openim' ? [] : [room]),
  ],
  ...planKnobs(__ENV),
});

export const options = {
  thresholds: {
    ...integrity, // nothing lost, late, unchecked, corrupted or unanswered
    e2e_p99: ['value<1000'],
    e2e_latency: ['p(95)<500'],
    login_failures: ['count==0'],
  },
};

/** @type {import('imbench').HandleSummary} */
export function handleSummary(summary) {
  const d = summary.deliveries; // every field is declared in imbench.d.ts (Summary): make typecheck catches a misspelt one
  return {
    stdout: im.table(summary),
    'deliveries.json': JSON.stringify({ expected: d.expected, received: d.received, lost: d.lost }, null, 2),
  };
}
