// WuKongIM benchmark, Send Rate Testing (../shared/seeds/002_*) as a limit
// search: the report's 40,000 messages a second was the most its server
// took "under maximum server performance utilization", with an average
// send latency of 400–600 ms. `make limit SCENARIO=wukongim/send-limit`
// raises wukongim/send's rate (groups with only their sender online) step
// by step, 30 s a step, until the average send latency (send → SENDACK)
// reaches 1 s or a delivery is lost, and names what gave out first.
// size: wukongim/send at the step's rate, 30 s a step, from 400 msg/s | SCALE=1: 100 groups of 100 at the step's rate
export { plan } from './send.js';
import { integrity } from '../lib/scenario.js';

export const options = {
  thresholds: integrity,
  limit: { objective: 'ack_avg<1000,lost==0,late==0', start: 400, step: '30s' },
};
