// WuKongIM benchmark, Send Rate Testing (../shared/seeds/002_*) as a limit
// search: the report's 40,000 messages a second was the most its server
// took "under maximum server performance utilization", with an average
// send latency of 400–600 ms. `make limit SCENARIO=wukongim/send-limit`
// raises the rate of wukongim/send's workload (groups of 100 with only
// their sender online) step by step, 30 s a step, until the average send
// latency (send → SENDACK) reaches 1 s or a delivery is lost, and names
// what gave out first. A sender waits for each answer before its next
// message, so one sender cannot put out more than one message an answer
// time: a step has a group (and its sender) per 100 msg/s of its rate, at
// least the seed's groups at SCALE, so that the senders are never what
// holds the rate back while the server answers quickly.
// size: a group per 100 msg/s of the step's rate, 30 s a step, from 400 msg/s | SCALE=1: at least 100 groups of 100
import im from 'imbench';
import { sizeKnobs, count } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

const { S, knobs } = sizeKnobs(__ENV, { scale: 0.01 });
const rate = knobs.rate || 400;

export const plan = im.workload({
  name: 'wukongim/send-limit',
  purpose: 'Send rate within an objective: groups with only their sender online',
  bodySize: 64,
  classes: [{ kind: 'groups', groups: Math.max(count(100, S), Math.ceil(rate / 100)), members: 100, senders: 1, totalRate: rate, duration: '30s' }],
  ...knobs,
});

export const options = {
  thresholds: integrity,
  limit: { objective: 'ack_avg<1000,lost==0,late==0', start: 400, step: '30s' },
};
