// Type declarations for imbench's k6 extension, k6/x/im (Go: k6/im).
// Use with @types/k6: add this file to your tsconfig "include" or reference it
// with /// <reference path="...im.d.ts" />.

declare module 'k6/x/im' {
  /** Where the IM server is. Loopback only unless allowRemote is true. */
  export interface TargetOptions {
    /** Target profile name: 'reference' (targets/reference) or a real system's profile. */
    name?: string;
    /** Protocol spoken: a registered driver ('openim'). */
    system: string;
    /** Endpoints by name; each protocol names what it needs (openim: api, ws; ws may list several, comma-separated). */
    endpoints: Record<string, string>;
    allowRemote?: boolean;
    /** Read by the protocol only, strictly (openim: OpenIMOptions, wildfire: WildfireOptions). */
    options?: OpenIMOptions | WildfireOptions | Record<string, unknown>;
  }

  /** The options of an OpenIM target. */
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

  /** The options of a Wildfire target (endpoints wildfire_admin, wildfire_mqtt). */
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

  export interface Target extends TargetOptions {}

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
    /** every class sends for this long instead of its message counts ('10m') */
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
   * messages (per sender per conversation) or duration.
   */
  export interface Pace {
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

  export interface RunOptions {
    /** VUs of the scenario; each holds users/vus users. */
    vus?: number;
    resultsDir?: string;
    /** At most the protocol's limit (openim: 25s; the gateway drops connections silent for 30 s). Default 20s. */
    pingInterval?: string;
    /** How long a seq gap may stay open before it is pulled. Default 500ms. */
    gapGrace?: string;
    /** First wait before a dropped user logs in again; doubles per attempt, each wait jittered. Default 1s. */
    reconnectDelay?: string;
    /** The longest wait between reconnect attempts. Default 10s. */
    reconnectCap?: string;
    /** A reconnect storm: this long after sending began, the target drops every connection at once. */
    stormAt?: string;
    /** Where to ask the target for the storm (the reference target's POST /fault/storm). Required with stormAt. */
    stormUrl?: string;
    /** Drain ends after this long without a delivery. Default 3s. */
    drainQuiet?: string;
    /** Drain ends after this long in any case. Default 60s. */
    drainTimeout?: string;
    /** Logins in flight per VU. Default 64. */
    loginParallel?: number;
    /** imbench's version (git describe), recorded in summary.json. */
    version?: string;
    /** Set the target up and stop: the first step of a distributed run. */
    setupOnly?: boolean;
    /** Unix ms every process of a distributed run keeps time from. */
    startAt?: number;
    /** Distributed: time allowed for each login phase (default 10s + 2 ms per user of a segment). */
    loginWindow?: string;
    /** Distributed: time allowed after the last scheduled send (default 15s). */
    sendMargin?: string;
    /** The target machine's cores, for per-core rates in the seed tables. */
    serverCores?: number;
  }

  /** What setup() returns; pass it on to session() and finish(). */
  export interface RunData {
    runId: string;
    vus: number;
  }

  export interface LoginResult {
    attempted: number;
    online: number;
    failed: number;
    first_error: string;
  }

  export interface SendResult {
    planned: number;
    acked: number;
    failed: number;
  }

  export interface HoldResult {
    seconds: number;
    /** users online in this k6 process when the hold ended */
    online_after: number;
    /** drops during the hold */
    disconnects: number;
  }

  export interface DrainResult {
    reason: 'complete' | 'quiet' | 'timeout' | 'stopped';
    seconds: number;
  }

  /** One VU's share of the users, held in Go. */
  export interface Session {
    readonly first: number;
    readonly count: number;
    /** 'late' waits until every VU finished sending. */
    login(phase: 'immediate' | 'late'): LoginResult;
    /** Waits until every VU's users are online, then sends at the plan's pace. */
    send(): SendResult;
    /** Keep the users online, heartbeating, for a duration ('60s'). */
    hold(duration: string): HoldResult;
    drain(): DrainResult;
    close(): void;
  }

  export interface FinishResult {
    /** deliveries expected, received and lost: one-to-one and groups */
    expected: number;
    received: number;
    lost: number;
    unexpected: number;
    /** chatrooms: deliveries to members present at sending that did not arrive (a rate, not a failure) */
    roomMissed: number;
  }

  export function target(options: TargetOptions): Target;
  export function workload(options: WorkloadOptions): Plan;
  export function integration(options: IntegrationOptions): Plan;
  /** Checks the target, creates users, friendships and groups. Call in setup(). */
  export function setup(plan: Plan, target: Target, options?: RunOptions): RunData;
  /** Joins a run another process set up (a segment started with --no-setup). */
  export function attach(plan: Plan, target: Target, options?: RunOptions): RunData;
  /** Call in the default function. */
  export function session(run: RunData): Session;
  /** Reconciles expected and received deliveries; emits im_lost. Call in teardown(). */
  export function finish(run?: RunData): FinishResult;
  /** handleSummary(data) { return im.summary(data) }: the seed's table and summary.json. */
  export function summary(data: object): Record<string, string>;

  const im: {
    target: typeof target;
    workload: typeof workload;
    integration: typeof integration;
    setup: typeof setup;
    attach: typeof attach;
    session: typeof session;
    finish: typeof finish;
    summary: typeof summary;
  };
  export default im;
}
