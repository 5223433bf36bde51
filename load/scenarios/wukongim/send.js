// WuKongIM benchmark, Send Rate Testing (../shared/seeds/002_*): 100 groups
// of 100, one member online per group (the one sending), 24,000 messages a
// minute per group: 100 × 24,000 / 60 = 40,000 messages a second; the
// report sent 20 million (200,000 per group, 500 s), average send latency
// 400–600 ms, 1–2 GB, CPU 60–80 % of a 16-core server.
// SCALE=1 is that size; the default 0.01 (one group, 2,000 messages at
// 400 a second) takes seconds. Over WuKongIM's protocol where the target
// speaks it (the reference target does); PROTOCOL=openim for a comparison.
// wukongim/send-wkstress is the test as the vendor's tool really ran it.
// size: 1 group, 2,000 messages at 400/s | SCALE=1: 100 groups × 100, 40,000 msg/s, 20 million
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'wukongim/send',
  purpose: 'Send rate: groups with only their sender online',
  bodySize: 64,
  classes: [{ kind: 'groups', groups: 100, members: 100, senders: 1, ratePerMinute: 24000, messages: 200000 }],
  ...planKnobs(__ENV, { scale: 0.01 }),
});

export const options = { thresholds: integrity };
