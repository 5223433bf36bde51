// A school day (docs/workloads.md, "A school day"): 40 students in 4 class
// groups, each with its teacher, and in one-to-one chats with each other.
// They log in over the first minute and chat from their login; two lessons
// follow the timetable, each opening with a burst of questions; in the break
// half of them go away. It runs over any of the three protocols.
//
//   imbench run -scenario docs/examples/school-day.js -protocol openim
import im from 'imbench';
import { planKnobs } from 'imbench/env';
import { integrity } from 'imbench/scenario';

// A lesson in every class group: the teacher and the 10 students take
// turns, all 11 writing at its start (the burst), then 2 messages a second.
/** @type {(startAt: string, stopAt: string) => import('imbench').GroupsClass} */
const lesson = (startAt, stopAt) => ({
  kind: 'groups', groups: 4, from: { teachers: 1, students: 10 }, senders: 11,
  burst: 11, totalRate: 8, startAt, stopAt,
});

export const plan = im.workload({
  name: 'school-day',
  purpose: 'class groups with their teacher, chats, two lessons and a break',
  populations: {
    students: { users: 40, loginOver: '60s', away: [{ at: '90s', for: '15s', share: 0.5 }] },
    teachers: { users: 4 },
  },
  classes: [
    lesson('65s', '90s'),
    lesson('110s', '130s'),
    { kind: 'pairs', pairs: 60, from: 'students', ratePerMinute: 6, stopAt: '130s' },
  ],
  ...planKnobs(__ENV),
});

export const options = { thresholds: { ...integrity, e2e_p99: ['value<1000'] } };

/** @type {import('imbench').HandleSummary} */
export function handleSummary(summary) {
  const m = summary.messages;
  const day = {
    logged_in_over_the_minute: summary.users.timed_logins,
    away_in_the_break: summary.users.logouts,
    lessons: m.by_class.slice(0, 2).map((c) => ({ sent: c.sent, first_send_ms: c.first_send_ms })),
    by_population: summary.deliveries.by_population,
  };
  return { stdout: im.table(summary), 'school-day.json': JSON.stringify(day, null, 2) };
}
