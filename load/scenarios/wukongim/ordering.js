// WuKongIM benchmark, Ordering Testing (../shared/seeds/002_*): one
// one-to-one chat, both online, one user sending rapidly; the receiver's
// order must be the sender's. The report showed it on video, with no count.
// Here "rapid sending" is run both ways, each a pair and a class of its
// own: each send waiting for its acknowledgement (1 in flight), and 16 in
// flight, the way a pipelining client sends. Every message is checked for
// order; the table's "Order by pacing" row says it per class. Disorder with
// 1 in flight fails the run; with 16 it is reported (the real server
// reorders back-to-back sends: wukongim.md). A real v2.1.2 on loopback
// (2026-11-25, 12 runs) failed 7 with 1–3 of 5,000 out of order even with
// 1 in flight, over the older and the newer reader alike, while its store
// held every seq in send order: its pushes overtook each other on the way
// out. That is the server's verdict, not imbench's.
// SCALE=1 sends 100,000 a pair; the default 0.05, 5,000. DURATION sends for a time.
// size: 2 × 5,000 messages | SCALE=1: 2 × 100,000 messages
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity, inOrder } from '../lib/scenario.js';

const rapid = (inFlight) => ({ kind: 'pairs', pairs: 1, allOnline: true, inFlight, messages: 100000 });

export const plan = im.workload({
  name: 'wukongim/ordering',
  purpose: 'Ordering: one pair waiting for each ack, one with 16 in flight; order checked per message',
  bodySize: 64,
  classes: [rapid(1), rapid(16)],
  ...planKnobs(__ENV, { scale: 0.05 }),
});

export const options = { thresholds: { ...integrity, ...inOrder } };
