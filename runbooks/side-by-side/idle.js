// A large group with a tenth online (2,000 members, 200 online, 2 messages a second from random online
// members) and 1,000 idle online users.
import im from 'imbench';
const D = __ENV.DURATION || '60s';
export const plan = im.workload({
  name: 'wkstress-idle',
  classes: [
    { kind: 'groups', groups: 1, members: 2000, senders: 200, ratePerMinute: 120, pace: 'burst', duration: D },
    { kind: 'online', users: 1000 },
  ],
});
