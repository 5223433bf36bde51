// 20 groups of 100 with 25 online (the same members, as wkstress's channels entry), a message a second
// each from a random online member, and 100 pairs at 30 a minute: issue 39's pairs workload.
import im from 'imbench';
const D = __ENV.DURATION || '60s';
export const plan = im.workload({
  name: 'wkstress-pairs',
  classes: [
    { kind: 'groups', groups: 20, members: 100, sameMembers: true, senders: 25, ratePerMinute: 60, pace: 'burst', duration: D },
    { kind: 'pairs', pairs: 100, allOnline: true, ratePerMinute: 30, pace: 'burst', duration: D },
  ],
});
