// WuKongIM benchmark, Receive Rate Testing (../shared/seeds/002_*) as a
// limit search: the report's 200,000 deliveries a second into one group
// with half its members online, "average receive latency under 1 s".
// `make limit SCENARIO=wukongim/receive-limit` raises wukongim/receive's
// message rate (each message delivered to every online member) step by
// step until the average end-to-end latency reaches 1 s or a delivery is
// lost; the step table gives the verified deliveries a second.
// size: wukongim/receive at the step's rate, 30 s a step, from 20 msg/s | SCALE=1: 10,000 members, 5,000 online, at the step's rate
export { plan } from './receive.js';
import { integrity } from '../lib/scenario.js';

export const options = {
  thresholds: integrity,
  limit: { objective: 'e2e_avg<1000,lost==0,late==0', start: 20, step: '30s' },
};
