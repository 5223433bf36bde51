// OpenIM stress report (../shared/seeds/000_*, 001_*) as a limit search:
// the report's servers held 50,000 and 100,000 users online at once. `make
// limit SCENARIO=openim/online-limit` holds openim/hold's users (light
// logins, heartbeats) for 60 s a step, more users each step, until one
// fails to get online, a connection fails, or a login takes 10 s at p99.
// size: openim/hold, 60 s a step, from 1,000 users | SCALE=1: -
export { plan } from './hold.js';

export const options = {
  hold: __ENV.IM_HOLD || '60s',
  limit: { objective: 'never_online==0,connect_errors==0,login_p99<10000', dimension: 'users', start: 1000, step: '60s' },
};
