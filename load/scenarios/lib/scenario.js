// The lifecycle every scenario shares: k6 options, setup, a segment process
// joining, logging the users in, teardown and the summary. A scenario states
// its plan and what its users do once online, or takes the usual: send,
// log the late users in, drain, close.
//
//   const sc = scenario('fanout', plan, { thresholds: integrity });
//   export const { options, setup, teardown, handleSummary } = sc;
//   export default sc.sendAndVerify;
import im from 'k6/x/im';
import exec from 'k6/execution';
import { target, vus, runOptions, tags } from './env.js';

// integrity fails the run on any lost or corrupted delivery.
export const integrity = { im_lost: ['count==0'], im_corrupted: ['count==0'] };

export function scenario(name, plan, { thresholds } = {}) {
  const VUS = vus(__ENV);
  const tgt = im.target(target(__ENV));
  const options = {
    tags: tags(__ENV),
    // Two hours, or the plan's sending time and an hour for logins and drain.
    scenarios: { [name]: { executor: 'per-vu-iterations', vus: VUS, iterations: 1,
      maxDuration: `${Math.ceil(Math.max(7200, plan.seconds * 1.25 + 3600))}s` } },
    setupTimeout: '30m',
    teardownTimeout: '5m',
  };
  if (thresholds) options.thresholds = thresholds;
  // online logs this VU's immediate users in. run is setup()'s data; a
  // segment process started with --no-setup joins the run instead.
  const online = (run) => {
    const s = im.session(run || im.attach(plan, tgt, runOptions(__ENV, VUS)));
    const o = s.login('immediate');
    if (o.attempted > 0 && o.online === 0) {
      exec.test.abort(`no user could log in: ${o.first_error}`);
    }
    return s;
  };
  return {
    options,
    setup: () => im.setup(plan, tgt, runOptions(__ENV, VUS)),
    online,
    // sendAndVerify is what most scenarios' users do once online.
    sendAndVerify: (run) => {
      const s = online(run);
      s.send();
      s.login('late');
      s.drain();
      s.close();
    },
    teardown: (run) => im.finish(run),
    handleSummary: (data) => im.summary(data),
  };
}
