// Wildfire performance report, 2.1 单聊发送测试 (../shared/seeds/003_*) as a
// limit search: the report's 发送速率 of 19,646 messages a second from 200
// senders to 1,000 receivers (999 offline, one watching phone), every
// message stored and the watcher's count right. The report sent as fast
// as acknowledged; a search sends at a set rate instead, step by step, 30 s
// a step, until an answer takes a second at p99, a send goes unanswered or
// a delivery (to the watcher) is lost. The step table's achieved rate is
// the report's 发送速率, its per-core figure the target machine's cores.
// size: 20 senders × 100 receivers, one watcher, 30 s a step, from 200 msg/s | SCALE=1: 200 × 1,000, one watcher
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'wildfire/single-send-limit',
  purpose: 'One-to-one send rate within an objective: receivers offline, one watcher online',
  bodySize: 36,
  classes: [{ kind: 'pairs', senders: 200, receivers: 1000, watchers: 1, totalRate: 200, duration: '30s' }],
  ...planKnobs(__ENV, { scale: 0.1 }),
});

export const options = {
  thresholds: { ...integrity, unanswered: ['count==0'] },
  limit: { objective: 'ack_p99<1000,unanswered==0,lost==0,late==0', start: 200, step: '30s' },
};
