// Wildfire group test (../shared/seeds/004_*, results in 003_* 3.x): 100
// senders write to 100 groups of 200: each group holds the 100 senders,
// 99 members of its own (no client: never online) and one watching phone
// in every group; 10 rounds as fast as acknowledged: 100 × 100 × 10 =
// 100,000 messages, 20,000,000 dispatches counting every member. The
// report: 145.8 s, 685.8 messages a second, 42.87 a core, 8,573 dispatches a
// core a second on 16 cores. Here every delivery to the online members (the
// other senders and the watcher) is verified.
// SCALE=1 is that size; the default 0.05: 5 groups, 1 round.
// size: 5 groups, 1 round | SCALE=1: 100,000 messages, 20 million dispatches
import { groupTest } from '../lib/wildfire.js';
import { integrity } from '../lib/scenario.js';

export const plan = groupTest('group200', 200, 100, 10);

export const options = { thresholds: integrity };
