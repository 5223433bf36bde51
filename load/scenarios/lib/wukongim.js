// WuKongIM's stability and reliability tests share one mix
// (../shared/seeds/002_*), each class at 30 messages a minute per
// conversation: 1,000 one-to-one chats (here both ends online), 200 groups
// of 200 and 100 groups of 500 with 25 % online, one group of 10,000 with
// 2,500 (25 %) online. (Its online figures add up to more than the 20,000
// it states.) S scales the numbers of pairs and groups and the big group's
// members; D is how long every class sends.
import { count } from './env.js';

export function stabilityMix(S, D) {
  return [
    { kind: 'pairs', pairs: count(1000, S), allOnline: true, ratePerMinute: 30, duration: D },
    { kind: 'groups', groups: count(200, S), members: 200, onlineShare: 0.25, ratePerMinute: 30, duration: D },
    { kind: 'groups', groups: count(100, S), members: 500, onlineShare: 0.25, ratePerMinute: 30, duration: D },
    { kind: 'groups', groups: 1, members: count(10000, S, 2), onlineShare: 0.25, ratePerMinute: 30, duration: D },
  ];
}
