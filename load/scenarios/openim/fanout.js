// Group fan-out at a fixed rate: IM_USERS users (default 200), all online,
// all in one group; each sends IM_MESSAGES texts to it (default 10), at
// IM_RATE messages per second over all of them. Every message is verified at
// every other member, so deliveries are messages × (users − 1): the load of
// WuKongIM's receive test and Wildfire's group tests, and what `make bench`
// measures generator CPU per verified delivery with.
// size: IM_USERS in one group, IM_MESSAGES at IM_RATE | SCALE=1: -
import im from 'imbench';
import { planKnobs } from '../lib/env.js';
import { integrity } from '../lib/scenario.js';

export const plan = im.integration({
  name: 'openim/fanout',
  purpose: 'Group fan-out: every message to every member, verified',
  users: Number(__ENV.IM_USERS || 200), superUsers: 0, loginRatio: 1,
  largeGroups: 1, commonGroups: 0, singleMessages: 0,
  groupMessages: Number(__ENV.IM_MESSAGES || 10),
  rate: 50,
  bodySize: 128,
  ...planKnobs(__ENV),
});

export const options = { thresholds: integrity };
