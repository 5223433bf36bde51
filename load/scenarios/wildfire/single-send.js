// Wildfire performance report, 2.1 单聊发送测试 (../shared/seeds/003_*):
// 200 senders, 1,000 receivers of which 999 offline and one watching phone
// online, 50 rounds: every sender writes to every receiver each round,
// 200 × 1,000 × 50 = 10,000,000 messages, as fast as acknowledged; the
// report: 509 s, 19,646 messages a second, 1,227 a core on 16 cores, "all
// stored, the watcher's count right". Here the watcher's count is exact.
// SCALE=1 is that size; SCALE scales senders, receivers and rounds (the
// default 0.05: 10 senders, 50 receivers, 3 rounds, 1,500 messages).
// size: 10 × 50, 1,500 messages | SCALE=1: 200 × 1,000, 10,000,000 messages
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'wildfire/single-send',
  purpose: 'One-to-one send: receivers offline, one watcher online',
  bodySize: 36,
  classes: [{ kind: 'pairs', senders: 200, receivers: 1000, watchers: 1, inFlight: 1, messages: 50 }],
  ...planKnobs(__ENV, { scale: 0.05 }),
});

export const options = { thresholds: integrity };
