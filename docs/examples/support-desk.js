// A support desk (docs/workloads.md, "A support desk"): 40 agents with 5
// customers each, who log in 20 s after the start and then write back; a
// 300-member broadcast group with a tenth of it online at 1 msg/s; the
// desk's traffic ramping from 5 to 50 msg/s over 60 s. It runs over any of
// the three protocols.
//
//   imbench run -scenario docs/examples/support-desk.js -protocol wildfire
import im from 'imbench';
import { planKnobs } from 'imbench/env';
import { integrity } from 'imbench/scenario';

export const plan = im.workload({
  name: 'support-desk',
  purpose: 'agents and their customers, who log in 20 s in; a broadcast group',
  classes: [
    { kind: 'hubs', hubs: 40, partners: 5, loginAt: '20s', startRate: 5, stages: [{ duration: '60s', target: 50 }] },
    { kind: 'groups', groups: 1, members: 300, onlineShare: 0.1, rate: 1, duration: '60s' },
  ],
  ...planKnobs(__ENV),
});

export const options = {
  thresholds: {
    ...integrity, // nothing lost, late, unchecked, corrupted or unanswered
    e2e_p99: ['value<1000'],
    never_online: ['count==0'], // every user got online (a login the server dropped and a retry let in is not a failure)
  },
};

/** @type {import('imbench').HandleSummary} */
export function handleSummary(summary) {
  const m = summary.messages;
  const d = summary.deliveries;
  const u = summary.users;
  const desk = {
    run: summary.run_id,
    sent: m.sent,
    planned: m.planned,
    busiest_second: { sent: m.peak_per_second, planned: Math.max(...m.planned_per_second) },
    customers_logged_in_late: u.planned_timed,
    expected: d.expected,
    received: d.received,
    pulled: d.by_pull,
    lost: d.lost,
    e2e_p99_ms: summary.latency_ms.e2e.p99,
    thresholds_crossed: summary.thresholds.filter((t) => !t.passed).map((t) => `${t.metric} ${t.expr}`),
  };
  return { stdout: im.table(summary), 'support-desk.json': JSON.stringify(desk, null, 2) };
}
