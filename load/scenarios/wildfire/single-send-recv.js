// Wildfire performance report, 2.2 单聊收发测试 (../shared/seeds/003_*): as
// single-send, but all 1,000 receivers online, receiving as messages come:
// 10,000,000 messages; the report: 719 s, 13,908 a second, 869 a core,
// in rows named 收发 (send and receive): 收发条数, 收发时间, 收发速率.
// SCALE=1 is that size; the default 0.05 (10 × 50, 3 rounds) takes seconds.
// size: 10 × 50, 1,500 messages | SCALE=1: 200 × 1,000, 10,000,000 messages
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'wildfire/single-send-recv',
  purpose: 'One-to-one send and receive: every receiver online',
  bodySize: 36,
  classes: [{ kind: 'pairs', senders: 200, receivers: 1000, allOnline: true, inFlight: 1, messages: 50 }],
  ...planKnobs(__ENV, { scale: 0.05 }),
});

export const options = { thresholds: integrity };
