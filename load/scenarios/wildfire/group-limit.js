// Wildfire group test (../shared/seeds/004_*, results in 003_* 3.x) as a
// limit search: the report's 1,340 messages a second into 100 groups of
// 100 (8,375 dispatches a core a second on 16 cores, "CPU 100 % means the
// service has no bottleneck"). Groups of 100, a tenth of their members
// online besides the senders, one watching phone in every group; the rate
// rises step by step, 30 s a step, until the average end-to-end latency
// reaches 1 s or a delivery is lost. The step table gives the dispatches
// (every member of each message's group, as 分发数 counts them).
// size: 5 groups of 100, 30 s a step, from 50 msg/s | SCALE=1: 100 groups of 100
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.05 });

export const plan = im.workload({
  name: 'wildfire/group-limit',
  purpose: 'Group dispatch rate within an objective: groups of 100, a tenth online, one watcher',
  bodySize: 36,
  classes: [{ kind: 'groups', groups: count(100, S), members: 100, senders: 5, online: 10, watchers: 1, totalRate: 50, duration: '30s' }],
  ...knobs,
});

export const options = {
  thresholds: integrity,
  limit: { objective: 'e2e_avg<1000,lost==0,late==0', start: 50, step: '30s' },
};
