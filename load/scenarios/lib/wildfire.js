// Wildfire's group test (../shared/seeds/004_*, results in 003_* 3.x), as
// wfcstress runs it: `senders` users write to 100 groups of `members`; each
// group holds the senders, members of its own (no client: never online) and
// one watching phone in every group; `rounds` rounds as fast as
// acknowledged. SCALE scales the groups and the rounds.
import im from 'imbench';
import { planKnobs, sizeKnobs, count } from './env.js';

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

// Wildfire's chatroom test (../shared/seeds/003_* 4.x): `members` clients
// join one chatroom, 100 more join and send 100 messages each at once, as
// fast as acknowledged. SCALE scales the members, the senders and their
// messages. A chatroom may drop by design: what members present missed is
// reported as a rate (im_room_missed), not failed.
export function chatroomTest(name, members, defaultScale) {
  const { S, knobs } = sizeKnobs(__ENV, { scale: defaultScale });
  const senders = count(100, S);
  return im.workload({
    name: `wildfire/${name}`,
    purpose: `Chatroom of ${members}: 100 senders × 100 messages to the members present`,
    bodySize: 36,
    classes: [{ kind: 'chatroom', members: count(members, S) + senders, senders, inFlight: 1, messages: count(100, S) }],
    ...knobs,
  });
}
