// A limit search's test scenario: pairs all online (LIMIT_PAIRS of them,
// 20 where not given), their total rate the step's (IM_RATE), sending for
// the step's time (IM_DURATION).
import im from 'imbench';

export const plan = im.workload({
  name: 'limit/pairs',
  runId: __ENV.IM_RUN_ID,
  rate: Number(__ENV.IM_RATE || 100),
  bodySize: Number(__ENV.IM_BODY_SIZE || 0) || undefined,
  classes: [{ kind: __ENV.LIMIT_KIND || 'pairs', ...(__ENV.LIMIT_KIND === 'groups' ? { groups: 1, members: 100 } : { pairs: Number(__ENV.LIMIT_PAIRS || 20) }),
    allOnline: true, totalRate: 1, duration: __ENV.IM_DURATION || '10s' }],
});
