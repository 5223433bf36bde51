// Wildfire group test (../shared/seeds/004_*, results in 003_* 3.x): 50
// senders write to 100 groups of 100: each group holds the 50 senders,
// 49 members of its own (no client: never online) and one watching phone
// in every group; 20 rounds as fast as acknowledged: 50 × 100 × 20 =
// 100,000 messages, 10,000,000 dispatches counting every member. The
// report: 74.6 s, 1,340 messages a second, 83.75 a core, 8,375 dispatches a
// core a second on 16 cores. Here every delivery to the online members (the
// other senders and the watcher) is verified.
// SCALE=1 is that size; the default 0.05: 5 groups, 1 round.
// size: 5 groups, 1 round | SCALE=1: 100,000 messages, 10 million dispatches
import { groupTest } from '../lib/wildfire.js';
import { integrity } from '../lib/scenario.js';

export const plan = groupTest('group100', 100, 50, 20);

export const options = { thresholds: integrity };
