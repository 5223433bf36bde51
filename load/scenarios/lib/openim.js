// OpenIM's msgtest (the seed's "Test Program B", openim-sdk-core/msgtest)
// as the load under tests 2 and 3 (../shared/seeds/000_*, 001_*):
//   go run main.go -s 49500 -e 99500 -c 100 -i 500 -rs 1000 -rr 1000
// holds users 49,500..99,500 online (50,000) while 1,000 random senders
// write 100 messages each, one every 500 ms, to 1,000 random receivers
// among them; the report measured about 1,700 a second. Here: 1,000 pairs
// (sender i writes to receiver i, both online), each sender at 1.7 a
// second (1,700 in all), for as long as the sampled users send, and the
// rest of the 50,000 online sending nothing. Every delivery of it is
// verified too. S scales the users, and so the total rate.
import { count } from './env.js';

export function msgtestLoad(S, seconds) {
  const pairs = count(1000, S);
  return [
    { kind: 'pairs', pairs, allOnline: true, rate: 1.7, duration: `${Math.max(1, Math.ceil(seconds))}s` },
    { kind: 'online', users: Math.max(1, count(50000, S) - 2 * pairs) },
  ];
}
