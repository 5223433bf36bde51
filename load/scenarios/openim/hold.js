// Idle holding: IM_USERS users (default 1,000) log in over OpenIM's real
// protocol and stay online, heartbeating, for IM_HOLD (default 60s; longer
// than the gateway's 30 s read deadline, so only heartbeats keep them), then
// log out. No messages. What `make bench` measures generator memory and CPU
// per online user with, and what the seeds' "N users online" loads are.
// Light logins by default (a pure hold); IM_LOGIN=sdk holds users who
// logged in as openim-sdk-core does, and the summary says what that cost.
// size: IM_USERS (1,000) held for IM_HOLD (60s) | SCALE=1: -
import im from 'imbench';
import { planKnobs } from '../lib/env.js';

export const plan = im.integration({
  name: 'openim/hold',
  purpose: 'Users online at once, kept alive by heartbeats',
  users: Number(__ENV.IM_USERS || 1000), superUsers: 0, loginRatio: 1,
  largeGroups: 0, commonGroups: 0, singleMessages: 0, groupMessages: 0,
  rate: 1,
  ...planKnobs(__ENV),
});

export const options = { hold: __ENV.IM_HOLD || '60s' };
