// Checks that every catalog scenario, at IM_SCALE=1, plans the seed's
// arithmetic. Not a scenario (it sends nothing): load/runner's tests
// evaluate it with IM_SCALE=1 and require every one of `results` to hold.
import * as test1 from '../openim/test1.js';
import * as test2 from '../openim/test2.js';
import * as test3 from '../openim/test3.js';
import * as test3zh from '../openim/test3-zh.js';
import * as send from '../wukongim/send.js';
import * as sendWkstress from '../wukongim/send-wkstress.js';
import * as receive from '../wukongim/receive.js';
import * as ordering from '../wukongim/ordering.js';
import * as mixed from '../wukongim/mixed.js';
import * as mixedWkstress from '../wukongim/mixed-wkstress.js';
import * as stability from '../wukongim/stability.js';
import * as reliability from '../wukongim/reliability.js';
import * as singleSend from '../wildfire/single-send.js';
import * as singleSendRecv from '../wildfire/single-send-recv.js';
import * as group100 from '../wildfire/group100.js';
import * as group200 from '../wildfire/group200.js';
import * as group1000 from '../wildfire/group1000.js';
import * as c1000k from '../wildfire/c1000k.js';
import * as chatroom1k from '../wildfire/chatroom1k.js';
import * as chatroom2k from '../wildfire/chatroom2k.js';
import * as chatroom5k from '../wildfire/chatroom5k.js';

export const results = [];

// check records, for each named condition, whether it holds of v.
function check(v, conditions) {
  for (const [name, cond] of Object.entries(conditions)) {
    results.push({ name, ok: cond(v) === true });
  }
}

check(test1.plan, {
  'openim/test1: 200 users, 100 online first, 16,450 messages at 40/s': (p) =>
    p.users === 200 && p.immediate === 100 && p.messages === 16450 && p.rate === 40,
});
check(test2.sample, {
  'openim/test2: 100 sampled users, 80 online first, 84,800 messages at 53 a second': (p) =>
    p.users === 100 && p.immediate === 80 && p.late === 20 && p.messages === 84800 && Math.abs(p.rate - 80 / 1.5) < 1e-9,
});
check(test2.plan, {
  'openim/test2: 50,000 online beside the sample, msgtest at 1,700 a second while it sends': (p) =>
    p.users === 50100 && p.immediate === 50080 && Math.abs(p.rate - 1700 - 80 / 1.5) < 1e-9 &&
    p.messages === 84800 + 1000 * Math.floor((1700 / 1000) * Math.ceil(test2.sample.seconds)),
});
check(test3.plan, {
  'openim/test3: a 110,000-member group, 10,010 online, 100,000 online, 100,000 messages at 200 a second': (p) =>
    p.groups === 1 && p.users === 110000 + 100000 - 10010 && p.immediate === 100000 &&
    p.messages === 100000 && p.rate === 200,
});
check(test3zh.sample, {
  'openim/test3-zh: ten groups of the same 50,000, 500 online, 4 late, 1,600 messages at 32 a second': (p) =>
    p.groups === 10 && p.users === 50000 && p.immediate === 500 && p.late === 4 && p.messages === 1600 && p.rate === 32,
});
check(test3zh.plan, {
  'openim/test3-zh: 100,000 users, 50,500 online': (p) => p.users === 100000 && p.immediate === 50500,
});
check(send.plan, {
  'wukongim/send: 40,000 msg/s, 20 million messages, one online per group': (p) =>
    p.rate === 40000 && p.messages === 20000000 && p.users === 10000 && p.immediate === 100,
});
check(sendWkstress.plan, {
  'wukongim/send-wkstress: 40,000 msg/s from one connection to 100 groups of the same 100 members': (p) =>
    p.rate === 40000 && p.messages === 20000000 && p.users === 100 && p.immediate === 1 && p.groups === 100,
});
check(receive.plan, {
  'wukongim/receive: 200,000 deliveries/s to 5,000 online, 20,000 messages': (p) =>
    p.rate * (p.immediate - 1) === 200000 && p.messages === 20000 && p.users === 10000,
});
check(mixed.plan, {
  'wukongim/mixed: 12,005 msg/s as its table states them, ~4 million in 330 s': (p) =>
    p.rate === 12005 && p.messages === 12005 * 330 && p.users === 2000 + 100 * 100 + 10000,
});
check(mixedWkstress.plan, {
  'wukongim/mixed-wkstress: 12,005 msg/s, the 100 small groups on the same 100 members': (p) =>
    p.rate === 12005 && p.users === 2000 + 100 + 10000 && p.groups === 101,
});
for (const [name, sc] of [['stability', stability], ['reliability', reliability]]) {
  check(sc.plan, {
    [`wukongim/${name}: 650.5 msg/s for 24 h, 27,301 online of 102,000`]: (p) =>
      p.rate === 650.5 && p.seconds >= 86399 && p.users === 102000 && p.immediate === 27301,
  });
}
check(ordering.plan, { 'wukongim/ordering: two pairs, 1 and 16 in flight': (p) => p.users === 4 && p.messages === 200000 });
check(singleSend.plan, {
  'wildfire/single-send: 10,000,000 messages, 999 of 1,000 receivers offline': (p) =>
    p.messages === 10000000 && p.users === 1200 && p.immediate === 201 && p.never === 999,
});
check(singleSendRecv.plan, {
  'wildfire/single-send-recv: 10,000,000 messages, every receiver online': (p) =>
    p.messages === 10000000 && p.immediate === 1200,
});
check(group100.plan, {
  'wildfire/group100: 100,000 messages, 50 senders and a watcher in 100 groups': (p) =>
    p.messages === 100000 && p.groups === 100 && p.users === 50 + 1 + 100 * 49 && p.immediate === 51,
});
check(group200.plan, {
  'wildfire/group200: 100,000 messages': (p) => p.messages === 100000 && p.users === 100 + 1 + 100 * 99,
});
check(group1000.plan, {
  'wildfire/group1000: 20,000 messages': (p) => p.messages === 20000 && p.users === 100 + 1 + 100 * 899,
});
for (const [n, sc] of [[1000, chatroom1k], [2000, chatroom2k], [5000, chatroom5k]]) {
  check(sc.plan, {
    [`wildfire/chatroom: ${n} members and 100 senders × 100 messages`]: (p) =>
      p.users === n + 100 && p.messages === 10000 && p.immediate === n + 100,
  });
}
check(c1000k.plan, { 'wildfire/c1000k: a million users': (p) => p.users === 1000000 && p.messages === 0 });
