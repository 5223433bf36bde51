// WuKongIM benchmark, Stability Testing (../shared/seeds/002_*): 20,000 online
// for 24 hours (the report ran 48): 100 million sent, 2 billion received,
// 100 % success, ~600 sent and ~15,000 received a second, 1–30 ms average
// send latency, 1–200 ms receive, ~5 GB, CPU ~20 %.
// The mix, each at 30 messages a minute per conversation:
//   1,000 one-to-one chats (here both ends online);
//   200 groups of 200, 25 % online; 100 groups of 500, 25 % online;
//   one group of 10,000, 2,500 online (25 %).
// (Its online figures add up to more than the 20,000 it states.)
// SCALE=1 is that size for 24 hours; SCALE scales the numbers of pairs and
// groups (the big group's members too); the default 0.05 sends for DURATION
// (default 1m).
// size: 5,100 users, 1 min | SCALE=1: 102,000 users, 650.5 msg/s for 24 h
import im from 'imbench';
import { sizeKnobs } from '../lib/env.js';
import { stabilityMix } from '../lib/wukongim.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.05 });
const D = knobs.duration || (S === 1 ? '24h' : '1m');

export const plan = im.workload({
  name: 'wukongim/stability',
  purpose: 'Stability: four classes at a steady pace for hours',
  bodySize: 64,
  classes: stabilityMix(S, D),
  ...knobs,
});

export const options = { thresholds: integrity };
