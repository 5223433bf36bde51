// The baseline `make bench` measures imbench against: stock k6 v1.8.1
// (.tools/bin/k6-stock, no extension) holding the same users the same way,
// with its built-in k6/websockets: one VU per connection, OpenIM's login
// query, a ping every IM_PING_MS, held for IM_HOLD_MS. IM_TOKENS names a JSON
// file of {id, token} the bench wrote after registering the users.
import { WebSocket } from 'k6/websockets';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';

const users = new SharedArray('users', () => JSON.parse(open(__ENV.IM_TOKENS)));
const PING_MS = Number(__ENV.IM_PING_MS || 20000);
const HOLD_MS = Number(__ENV.IM_HOLD_MS || 60000);

export const options = {
  scenarios: {
    hold: { executor: 'per-vu-iterations', vus: users.length, iterations: 1, maxDuration: '30m' },
  },
  summaryTrendStats: ['avg', 'max'],
};

export default function () {
  const u = users[exec.vu.idInTest - 1];
  const url = `${__ENV.IM_WS_URL}/?sendID=${u.id}&token=${u.token}&platformID=2` +
    `&operationID=bench-${u.id}&isBackground=false&compression=gzip`;
  const ws = new WebSocket(url);
  ws.onopen = () => {
    const ping = setInterval(() => ws.ping(), PING_MS);
    setTimeout(() => {
      clearInterval(ping);
      ws.close();
    }, HOLD_MS);
  };
  ws.onerror = (e) => console.error(`${u.id}: ${e.error}`);
}
