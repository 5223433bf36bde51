// WuKongIM benchmark, Ordering Testing (../shared/seeds/002_*): one
// one-to-one chat, both online, one user sending as fast as the server
// acknowledges; the receiver's order must be the sender's. The report
// showed it on video, with no count; here every message is checked for
// order (Duplicates / Out of order in the table), 16 in flight.
// SCALE=1 sends 100,000; the default 0.05, 5,000. DURATION sends for a time.
// size: 5,000 messages | SCALE=1: 100,000 messages
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.workload({
  name: 'wukongim/ordering',
  purpose: 'Ordering: one pair sending as fast as acknowledged, order checked per message',
  bodySize: 64,
  classes: [{ kind: 'pairs', pairs: 1, allOnline: true, inFlight: 16, messages: 100000 }],
  ...planKnobs(__ENV, { scale: 0.05 }),
});

export const options = { thresholds: { ...integrity, out_of_order: ['count==0'] } };
