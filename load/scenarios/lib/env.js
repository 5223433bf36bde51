// Environment → k6/x/im options, shared by every scenario. `make run-scenario`
// (cmd/imbench) sets these; with plain `k6 run` set them yourself (-e or env).
//
//   IM_TARGET        target profile: reference (default), openim, wukongim, wildfire
//   IM_PROTOCOL      the protocol to speak: openim (default), wukongim or wildfire
//   IM_ENDPOINTS     the protocol's endpoint names, comma-separated (openim:
//                    api,ws; wukongim: wukongim_api,wukongim_tcp,wukongim_ws;
//                    wildfire: wildfire_admin,wildfire_mqtt);
//                    each is IM_<NAME>_URL. Without it, the reference
//                    target's: IM_API_URL (http://127.0.0.1:10002) and
//                    IM_WS_URL (ws://127.0.0.1:10001) for openim,
//                    IM_WUKONGIM_API_URL (http://127.0.0.1:15001),
//                    IM_WUKONGIM_TCP_URL (tcp://127.0.0.1:15100) and
//                    IM_WUKONGIM_WS_URL (ws://127.0.0.1:15200) for wukongim,
//                    IM_WILDFIRE_ADMIN_URL (http://127.0.0.1:18180) and
//                    IM_WILDFIRE_MQTT_URL (tcp://127.0.0.1:11883) for wildfire
//   IM_SECRET        admin secret (openim: share.yml's; wukongim: the
//                    managerToken; wildfire: http.admin.secret_key)
//   IM_ADMIN_USER    admin user id     (default imAdmin)
//   IM_PLATFORM      openim: platformID of every connection (default 2, Android)
//   IM_ENVELOPE      openim: gob (the Go SDK's) or json (the JS SDK's)
//   IM_COMPRESSION   openim: gzip (default) or none
//   IM_LOGIN         openim: what a user does once connected: light (1001
//                    and pulls, as msgtest's users hardly more) or sdk (the
//                    requests openim-sdk-core makes at login, REST calls
//                    with the user's token included). Default light; sdk in
//                    the scenarios of the SDK-based programs (openim/test1)
//   IM_DEVICE_FLAG   wukongim: device flag of every connection (0 APP, 1 WEB, 2 PC)
//   IM_TRANSPORT     wukongim: tcp (default) or ws
//   IM_KEEP_ALIVE    wildfire: CONNECT's keepAlive in seconds (default 60)
//   IM_WF_PLATFORM   wildfire: get_token's platform (default 7, Linux)
//   IM_ALLOW_REMOTE  1 to allow a server outside 127.0.0.0/8
//   IM_SOURCE_ADDRS  local addresses to spread connections over, comma-
//                    separated (e.g. 127.0.0.2,127.0.0.3): each address
//                    has its own ephemeral ports towards one gateway
//   IM_RUN_ID        run id (default: generated); user ids derive from it
//   IM_SCALE         scales users and messages (1 = the seed's size; each
//                    scenario picks a default that runs in a few minutes)
//   IM_RATE          messages per second, overriding the seed's pacing
//   IM_DURATION      send for this long instead of the stated message counts
//   IM_BODY_SIZE     message text bytes
//   IM_VUS           k6 VUs sharing the users (one VU holds thousands)
//   IM_RESULTS_DIR   where results/<run id>/ goes (default results)
//   IM_INSTANCE      tag instance=<value> on every sample: one k6 process
//                    of several (the k6-operator's runners set their pod name)
//   IM_PING_INTERVAL, IM_DRAIN_QUIET, IM_DRAIN_TIMEOUT   durations
//   IM_SERVER_CORES  the target machine's cores (per-core rates in the tables)
//   IM_RECONNECT_DELAY, IM_RECONNECT_CAP   a dropped user's first wait before
//                    logging in again (default 1s, doubling, jittered) and
//                    the longest (default 10s)
//   IM_STORM_AT      this long after sending began, the target drops every
//                    connection at once (a reconnect storm; openim/storm's
//                    default is 20s; off: none, e.g. against a real server)
//   IM_STORM_URL     where to ask for it: the reference target's POST
//                    /fault/storm beside its /metrics (the CLI sets it)
// A run split over several k6 processes (execution segments, `imbench run
// -segments N`): one process sets the target up with IM_SETUP_ONLY=1, then
// the segments run with --no-setup and keep time from IM_START_AT (unix ms);
// IM_LOGIN_WINDOW and IM_SEND_MARGIN size their common phases.

// Defaults per protocol when IM_ENDPOINTS is not set: the reference
// target's ports.
const defaultEndpoints = {
  openim: (env) => ({ api: env.IM_API_URL || 'http://127.0.0.1:10002', ws: env.IM_WS_URL || 'ws://127.0.0.1:10001' }),
  wukongim: (env) => ({
    wukongim_api: env.IM_WUKONGIM_API_URL || 'http://127.0.0.1:15001',
    wukongim_tcp: env.IM_WUKONGIM_TCP_URL || 'tcp://127.0.0.1:15100',
    wukongim_ws: env.IM_WUKONGIM_WS_URL || 'ws://127.0.0.1:15200',
  }),
  wildfire: (env) => ({
    wildfire_admin: env.IM_WILDFIRE_ADMIN_URL || 'http://127.0.0.1:18180',
    wildfire_mqtt: env.IM_WILDFIRE_MQTT_URL || 'tcp://127.0.0.1:11883',
  }),
};

// The OpenIM login a scenario's users make unless IM_LOGIN says: light,
// or what openimLogin set it to.
let openimDefaultLogin = 'light';

// openimLogin makes mode ('light' or 'sdk') the scenario's default OpenIM
// login; call it before scenario().
export function openimLogin(mode) {
  openimDefaultLogin = mode;
}

// When a scenario's storm comes unless IM_STORM_AT says: none, or what
// stormAt set it to.
let defaultStormAt = '';

// stormAt makes a reconnect storm part of the scenario: d (a duration)
// after sending began, the target drops every connection at once.
export function stormAt(d) {
  defaultStormAt = d;
}

// Each protocol's options (its driver refuses names it does not know).
const protocolOptions = {
  openim: (env) => ({
    secret: env.IM_SECRET || '',
    admin: env.IM_ADMIN_USER || 'imAdmin',
    platform: Number(env.IM_PLATFORM || 2),
    envelope: env.IM_ENVELOPE || 'gob',
    compression: env.IM_COMPRESSION || 'gzip',
    login: env.IM_LOGIN || openimDefaultLogin,
    sourceAddrs: list(env.IM_SOURCE_ADDRS),
  }),
  wukongim: (env) => ({
    secret: env.IM_SECRET || '',
    admin: env.IM_ADMIN_USER || '',
    deviceFlag: Number(env.IM_DEVICE_FLAG || 0),
    transport: env.IM_TRANSPORT || 'tcp',
    sourceAddrs: list(env.IM_SOURCE_ADDRS),
  }),
  wildfire: (env) => ({
    secret: env.IM_SECRET || '',
    platform: Number(env.IM_WF_PLATFORM || 7),
    keepAlive: Number(env.IM_KEEP_ALIVE || 60),
    sourceAddrs: list(env.IM_SOURCE_ADDRS),
  }),
};

function list(raw) {
  return (raw || '').split(',').map((a) => a.trim()).filter((a) => a !== '');
}

// endpoints are the target's by name: those IM_ENDPOINTS lists (the CLI
// sets it from the target's profile, the protocol's only), each from
// IM_<NAME>_URL; without it, the reference target's.
function endpoints(env, protocol) {
  const names = list(env.IM_ENDPOINTS);
  if (names.length === 0) return defaultEndpoints[protocol](env);
  const out = {};
  for (const n of names) out[n] = env[`IM_${n.toUpperCase()}_URL`] || '';
  return out;
}

export function target(env) {
  const protocol = env.IM_PROTOCOL || 'openim';
  if (!protocolOptions[protocol]) {
    throw new Error(`IM_PROTOCOL=${protocol}: known protocols are ${Object.keys(protocolOptions).join(', ')}`);
  }
  return {
    name: env.IM_TARGET || 'reference',
    system: protocol,
    endpoints: endpoints(env, protocol),
    allowRemote: env.IM_ALLOW_REMOTE === '1',
    options: protocolOptions[protocol](env),
  };
}

function number(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0) {
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  }
  return v;
}

// planKnobs are the run-size settings a user turns from the command line,
// as im.workload options; defaults.scale is the scenario's own default.
// (im.integration takes them too, but for duration.)
export function planKnobs(env, defaults = {}) {
  const k = { runId: env.IM_RUN_ID || '', scale: number(env, 'IM_SCALE', defaults.scale || 1) };
  const rate = number(env, 'IM_RATE', 0);
  if (rate) k.rate = rate;
  if (env.IM_DURATION) k.duration = env.IM_DURATION;
  const body = number(env, 'IM_BODY_SIZE', 0);
  if (body) k.bodySize = Math.floor(body);
  return k;
}

// vus is how many k6 VUs share the users.
export function vus(env) {
  return Math.floor(number(env, 'IM_VUS', 1));
}

export function runOptions(env, vus) {
  const o = { vus, resultsDir: env.IM_RESULTS_DIR || 'results', version: env.IM_IMBENCH_VERSION || '' };
  if (env.IM_PING_INTERVAL) o.pingInterval = env.IM_PING_INTERVAL;
  if (env.IM_DRAIN_QUIET) o.drainQuiet = env.IM_DRAIN_QUIET;
  if (env.IM_DRAIN_TIMEOUT) o.drainTimeout = env.IM_DRAIN_TIMEOUT;
  if (env.IM_SETUP_ONLY === '1') o.setupOnly = true;
  if (env.IM_START_AT) o.startAt = number(env, 'IM_START_AT', 0);
  if (env.IM_LOGIN_WINDOW) o.loginWindow = env.IM_LOGIN_WINDOW;
  if (env.IM_SEND_MARGIN) o.sendMargin = env.IM_SEND_MARGIN;
  if (env.IM_SERVER_CORES) o.serverCores = Math.floor(number(env, 'IM_SERVER_CORES', 0));
  if (env.IM_RECONNECT_DELAY) o.reconnectDelay = env.IM_RECONNECT_DELAY;
  if (env.IM_RECONNECT_CAP) o.reconnectCap = env.IM_RECONNECT_CAP;
  const stormAt = env.IM_STORM_AT || defaultStormAt;
  if (stormAt && stormAt !== 'off') o.stormAt = stormAt;
  if (env.IM_STORM_URL) o.stormUrl = env.IM_STORM_URL;
  return o;
}

// tags are the test-wide tags: instance, when this process is one of
// several, so that each pushes its own series to Prometheus.
export function tags(env) {
  return env.IM_INSTANCE ? { instance: env.IM_INSTANCE } : {};
}

// sizeKnobs is planKnobs for a scenario that scales its own sizes (group
// sizes, online counts) with scale S rather than leave them to the
// workload's scale: S, and the other knobs.
export function sizeKnobs(env, defaults = {}) {
  const { scale, ...rest } = planKnobs(env, defaults);
  return { S: scale, knobs: rest };
}

// count is v × S, rounded, at least min.
export function count(v, S, min = 1) {
  return Math.max(min, Math.round(v * S));
}
