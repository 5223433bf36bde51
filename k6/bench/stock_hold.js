// The baseline `make bench` measures imbench against: stock k6 v1.8.1
// (.tools/bin/k6-stock, no extension) holding the same users the same way,
// with its built-in k6/websockets: one VU per connection, a ping every
// IM_PING_MS, held for IM_HOLD_MS. IM_LOGINS names a JSON array of the URLs
// that log each user in, which the target's protocol gave the bench after
// setting the users up (engine.StockLogins).
import { WebSocket } from 'k6/websockets';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';

const logins = new SharedArray('logins', () => JSON.parse(open(__ENV.IM_LOGINS)));
const PING_MS = Number(__ENV.IM_PING_MS || 20000);
const HOLD_MS = Number(__ENV.IM_HOLD_MS || 60000);

export const options = {
  scenarios: {
    hold: { executor: 'per-vu-iterations', vus: logins.length, iterations: 1, maxDuration: '30m' },
  },
  summaryTrendStats: ['avg', 'max'],
};

export default function () {
  const url = logins[exec.vu.idInTest - 1];
  const ws = new WebSocket(url);
  ws.onopen = () => {
    const ping = setInterval(() => ws.ping(), PING_MS);
    setTimeout(() => {
      clearInterval(ping);
      ws.close();
    }, HOLD_MS);
  };
  ws.onerror = (e) => console.error(`VU ${exec.vu.idInTest}: ${e.error}`);
}
