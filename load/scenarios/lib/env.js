// Environment → plan knobs, shared by every scenario. `make run-scenario`
// (imbench run) sets these; `imbench run -h` lists the rest (the target,
// its endpoints and secret, the protocol's options, run tuning), which the
// runner reads itself.
//
//   IM_RUN_ID        run id (the runner sets it); user ids derive from it
//   IM_SCALE         scales users and messages (1 = the seed's size; each
//                    scenario picks a default that runs in a few minutes)
//   IM_RATE          messages per second, overriding the seed's pacing
//   IM_DURATION      send for this long instead of the stated message counts
//   IM_BODY_SIZE     message text bytes

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
