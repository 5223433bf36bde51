// Type declarations for the module a scenario imports: import im from 'imbench'.
// imbench evaluates a scenario once (its own runner, no k6): the scenario
// exports `plan` (im.workload or im.integration), optionally `options`
// (ScenarioOptions: thresholds in k6's syntax, hold, stormAt, vus,
// protocolOptions) and `handleSummary(summary)`, which returns
// { [file]: text }: `stdout` and `stderr` are printed, a relative file name
// is written inside the run's folder (results/<run id>/), an absolute path
// where it says. Reference this file from a tsconfig "include" or with
// /// <reference path="...imbench.d.ts" />.

declare module 'imbench' {
  /** What a scenario may export as `options`. */
  export interface ScenarioOptions {
    /**
     * k6-style thresholds on the run's figures; a crossed one exits 99
     * (`imbench run -no-thresholds` skips them). Counters (sent, acked,
     * send_failures, unsent, unanswered, expected, deliveries, lost, lost_never_stored (lost: the server acknowledged
     * them and holds none), late (the server holds them, undelivered when the drain ended), unchecked (undelivered, and the server
     * did not answer the store check's read of them), duplicates, out_of_order,
     * pushed_after_pull, not_attempted, corrupted, unexpected, of_unanswered, room_missed,
     * connect_errors, disconnects, reconnects, logins, login_failures,
     * login_retries, never_online) take count and rate, deliveries' counters also
     * {conv_type:single|group|room}, and deliveries, duplicates and
     * out_of_order {inflight:N}: the classes whose senders had N messages in
     * flight (1: each send waits for its acknowledgement); integrity takes rate; e2e_latency,
     * ack_latency and login_time (ms) take avg, med, max and p(N);
     * e2e_avg|p50|p95|p99|max and ack_* take value.
     * { lost: ['count==0'], e2e_p99: ['value<1000'] }
     */
    thresholds?: Record<string, string | Array<string | { threshold: string }>>;
    /** The users stay online, heartbeating, this long instead of sending ('60s'). */
    hold?: string;
    /** A reconnect storm this long after sending began (IM_STORM_AT overrides; 'off': none). */
    stormAt?: string;
    /** Workers sharing the users in one process (IM_VUS overrides; default 1). */
    vus?: number;
    /** Defaults per protocol for options the environment does not set: { openim: { login: 'sdk' } }. */
    protocolOptions?: { openim?: Partial<OpenIMOptions>; wukongim?: Record<string, unknown>; wildfire?: Partial<WildfireOptions> };
    /** A limit search's defaults for this scenario (`make limit`, `imbench limit`); its flags override each. */
    limit?: LimitOptions;
  }

  /** A limit search: the load rises step by step, each step a whole run, until one breaks the objective. */
  export interface LimitOptions {
    /** Conditions every step must meet, as thresholds name the figures: 'e2e_p99<1000,lost==0'. */
    objective?: string;
    /** What rises: 'rate' (the open classes' messages a second, IM_RATE) or 'users' (users held, IM_USERS, a hold scenario). */
    dimension?: 'rate' | 'users';
    /** The first step's load. */
    start?: number;
    /** The most load to try. */
    max?: number;
    /** Each step that holds multiplies the load by this (default 2). */
    factor?: number;
    /** The interval between the last load held and the first broken is narrowed to this share (default 0.05). */
    resolution?: number;
    /** How long each step sends or holds ('30s'). */
    step?: string;
  }

  /** The options of an OpenIM target (set from IM_SECRET, IM_ADMIN_USER, IM_PLATFORM, IM_ENVELOPE, IM_COMPRESSION, IM_LOGIN, IM_SOURCE_ADDRS). */
  export interface OpenIMOptions {
    /** share.yml secret, exchanged for an admin token. */
    secret: string;
    /** Admin user id (default imAdmin). */
    admin?: string;
    /** platformID of every connection (default 2, Android). */
    platform?: number;
    /** Envelope: 'gob' (sdkType=go, the Go SDK's) or 'json' (sdkType=js). */
    envelope?: 'gob' | 'json';
    /** 'gzip' (compression=gzip, the SDK default) or 'none'. */
    compression?: 'gzip' | 'none';
    /** isMsgResp=true: the gateway reports the login result as a text frame. */
    msgResp?: boolean;
    /** Local addresses to spread connections over (more source ports). */
    sourceAddrs?: string[];
    /** Request and handshake timeout, a duration string (default 10s). */
    timeout?: string;
    /**
     * What a user does once connected: 'light' (default: newest seqs, then
     * pulls of what is missing) or 'sdk' (the requests openim-sdk-core v3.8
     * makes at login, its REST calls with the user's token included).
     */
    login?: 'light' | 'sdk';
  }

  /** The options of a Wildfire target (set from IM_SECRET, IM_WF_PLATFORM, IM_KEEP_ALIVE, IM_SOURCE_ADDRS). */
  export interface WildfireOptions {
    /** The admin API's http.admin.secret_key: signs every admin call. */
    secret: string;
    /** get_token's platform (default 7, Linux). */
    platform?: number;
    /** CONNECT's keepAlive, seconds (default 60): the server drops a connection silent 1.5 times this. */
    keepAlive?: number;
    /** Local addresses to spread connections over (more source ports). */
    sourceAddrs?: string[];
    /** Request and handshake timeout, a duration string (default 10s). */
    timeout?: string;
  }

  /**
   * A test as a list of classes, each on users of its own, run side by side.
   * Nothing proportional to the number of messages is kept: messages are
   * generated as the run goes.
   */
  export interface WorkloadOptions {
    name: string;
    purpose?: string;
    /** user and group id prefix (default `${runId}_`) */
    prefix?: string;
    runId?: string;
    /** scales conversation counts and messages; 1 is the size as stated */
    scale?: number;
    /** messages per second over all open classes; each class keeps its share */
    rate?: number;
    /** every paced class sends for this long instead of its message counts ('10m'): its classes then need neither messages nor duration */
    duration?: string;
    /** message text size in bytes */
    bodySize?: number;
    classes: Array<GroupsClass | PairsClass | ChatroomClass | IntegrationClass | OnlineClass>;
  }

  /**
   * How fast and how long a class sends. Open: one of rate / ratePerMinute
   * (per conversation), totalRate (over the class) or stages (ramping the
   * class's total rate from startRate, k6 ramping-arrival-rate style; their
   * length is the class's); messages fall due on a schedule and the lag
   * behind it is measured. Closed: inFlight messages per sender, each sent
   * once one is acknowledged; the result is the rate achieved. Length:
   * messages (per sender per conversation) or duration. pace (open only):
   * 'even' (the default) spaces the messages evenly, each after the last
   * one's answer; 'burst' sends each second's messages together at its
   * start, back to back without waiting for answers, as wkstress writes
   * them (order is then reported with a second's messages in flight).
   */
  export interface Pace {
    pace?: 'even' | 'burst';
    rate?: number;
    ratePerMinute?: number;
    totalRate?: number;
    startRate?: number;
    stages?: Stage[];
    inFlight?: number;
    messages?: number;
    duration?: string;
  }

  /** The rate goes linearly to target (messages/s over the class) over duration ('30s'). */
  export interface Stage {
    duration: string;
    target: number;
  }

  /**
   * Which receivers are online: online (a count) or onlineShare for the whole
   * test (allOnline: all of them), then late ones that log in after sending
   * and pull what they missed, then watchers (online, placed last among
   * receivers that are otherwise never online); the rest never log in.
   */
  export interface Presence {
    online?: number;
    onlineShare?: number;
    late?: number;
    lateShare?: number;
    watchers?: number;
    allOnline?: boolean;
  }

  /**
   * G groups of M members; the first `senders` members send, taking turns.
   * Rates per group. `shared`: the senders and the watchers are the same
   * users in every group (Wildfire's wfcstress), the other receivers each
   * group's own. `sameMembers`: every group has the same members (users are
   * `members`, not groups × members).
   */
  export interface GroupsClass extends Pace, Presence {
    kind: 'groups';
    groups: number;
    members: number;
    senders?: number;
    shared?: boolean;
    sameMembers?: boolean;
  }

  /** Users online for the whole test, in no conversation, sending nothing: a seed's background "N users online". */
  export interface OnlineClass {
    kind: 'online';
    users: number;
  }

  /** One-to-one chats: `pairs` pairs, or every one of `senders` with every one of `receivers`. Rates per pair. */
  export interface PairsClass extends Pace, Presence {
    kind: 'pairs';
    pairs?: number;
    senders?: number;
    receivers?: number;
  }

  /**
   * Chatrooms of `members` users, all online; nobody is in a room until
   * joining at run time. The first `senders` join before sending and send,
   * taking turns; the others join then too, or `joinRate` a second from the
   * start of sending. A message is expected at the members present when it
   * was sent; what they miss is reported as a rate (rooms keep no history).
   * Needs a protocol that carries chatrooms. Rates per room.
   */
  export interface ChatroomClass extends Pace {
    kind: 'chatroom';
    rooms?: number;
    members: number;
    senders?: number;
    joinRate?: number;
  }

  /** OpenIM's integration_test as a class (IntegrationOptions without the workload's fields). */
  export interface IntegrationClass extends Omit<IntegrationOptions, 'name' | 'purpose' | 'scale' | 'bodySize' | 'prefix' | 'runId'> {
    kind: 'integration';
  }

  /** OpenIM integration_test flags (the seed's "Test Program A"). */
  export interface IntegrationOptions {
    name: string;
    purpose?: string;
    /** -u */ users: number;
    /** -su: user i < superUsers befriends every user after it */ superUsers?: number;
    /** -lg */ largeGroups?: number;
    /** -lgm (0: every user) */ largeGroupMembers?: number;
    /** -cg: groups each user online creates */ commonGroups?: number;
    /** -cgm */ commonGroupMembers?: number;
    /** -lgr: share of users online before sending; the rest log in after */ loginRatio: number;
    /** -sm: messages per friend */ singleMessages?: number;
    /** -gm: messages per group */ groupMessages?: number;
    /** concurrent senders (integration_test: 20) */ senders?: number;
    /** -msgitv, per sender */ intervalMs?: number;
    /** messages per second over all senders; overrides senders/intervalMs */ rate?: number;
    /** scales users, super users and messages per conversation */ scale?: number;
    /** message text size in bytes */ bodySize?: number;
    /** user and group id prefix (default `${runId}_`) */ prefix?: string;
    runId?: string;
    kind?: 'integration';
  }

  export interface Plan {
    readonly name: string;
    readonly users: number;
    readonly immediate: number;
    readonly late: number;
    readonly never: number;
    readonly groups: number;
    readonly friendships: number;
    /** -1 when only a duration bounds a closed class */
    readonly messages: number;
    readonly rate: number;
    /** sending time at the plan's pace */
    readonly seconds: number;
  }

  /** summary.json as handleSummary receives it (see internal/summary). */
  export type Summary = Record<string, any>;

  export function workload(options: WorkloadOptions): Plan;
  export function integration(options: IntegrationOptions): Plan;
  /** The seed-style table the run prints, for a handleSummary that adds to it. */
  export function table(summary: Summary): string;

  const im: {
    workload: typeof workload;
    integration: typeof integration;
    table: typeof table;
  };
  export default im;
}

/** The environment's knobs, for a scenario anywhere: import { planKnobs } from 'imbench/env'. */
declare module 'imbench/env' {
  /** What `make run-scenario` (imbench run) sets from SCALE, RATE, DURATION, BODY_SIZE and the run id. */
  export interface Knobs {
    runId: string;
    scale: number;
    rate?: number;
    duration?: string;
    bodySize?: number;
  }
  /** The run-size settings from __ENV, as im.workload options; defaults.scale is the scenario's own. */
  export function planKnobs(env: Record<string, string>, defaults?: { scale?: number }): Knobs;
  /** planKnobs for a scenario that scales its own sizes with S rather than the workload's scale. */
  export function sizeKnobs(env: Record<string, string>, defaults?: { scale?: number }): { S: number; knobs: Omit<Knobs, 'scale'> };
  /** v × S rounded, at least min (1). */
  export function count(v: number, S: number, min?: number): number;
}

/** The catalog's shared thresholds, for a scenario anywhere: import { integrity } from 'imbench/scenario'. */
declare module 'imbench/scenario' {
  /** Fails the run on any lost, late, unchecked or corrupted delivery and on any unanswered send. */
  export const integrity: Record<string, string[]>;
  /** Fails the run on disorder or a duplicate among the classes with 1 message in flight. */
  export const inOrder: Record<string, string[]>;
}
