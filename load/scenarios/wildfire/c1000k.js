// Wildfire performance report, 1. 单机百万长连接测试 (../shared/seeds/003_*):
// one server holds a million users online for 30 minutes and more, no
// drops. SCALE=1 is a million users (more than one k6 process holds: run
// it with SEGMENTS, see docs/scale.md); the default 0.002
// holds 2,000 for IM_HOLD (default 60s; the report: 30m). Its table has
// the report's rows: connections held (the generator's peak online), for
// how long, the drops; the server's own online count is its gauge in
// Prometheus (wildfire_online_users), not in summary.json.
// size: 2,000 users for 60 s | SCALE=1: a million users
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.002 });
export const plan = im.workload({
  name: 'wildfire/c1000k',
  purpose: 'Connections held online, kept alive by heartbeats, no drops',
  classes: [{
    kind: 'integration', users: count(1000000, S, 2), superUsers: 0, loginRatio: 1,
    largeGroups: 0, commonGroups: 0, singleMessages: 0, groupMessages: 0, rate: 1,
  }],
  ...knobs,
});

export const options = { thresholds: { disconnects: ['count==0'] }, hold: __ENV.IM_HOLD || '60s' };
