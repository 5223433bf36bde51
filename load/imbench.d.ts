// Type declarations for the module a scenario imports: import im from 'imbench'.
// imbench evaluates a scenario once (its own runner, no k6): the scenario
// exports `plan` (im.workload or im.integration), optionally `options`
// (ScenarioOptions: thresholds in k6's syntax, hold, stormAt, vus,
// protocolOptions) and `handleSummary(summary)`, which returns
// { [file]: text }: `stdout` and `stderr` are printed, a relative file name
// is written inside the run's folder (results/<run id>/), an absolute path
// where it says. Reference this file from a tsconfig "include" or with
// /// <reference path="...imbench.d.ts" />.

/** The environment a scenario runs in: IM_* knobs, IM_PROTOCOL, and whatever else was set. */
declare const __ENV: Record<string, string>;

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
    /** CONNECT's keepAlive, seconds (default 180, the web client's ping period): the client pings after this long without sending; the server drops a connection silent 1.5 times this. */
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
    /** named sets of users that groups, pairs and hubs classes draw from (`from`): a user may be in several conversations of several classes */
    populations?: Record<string, Population>;
    classes: Array<GroupsClass | PairsClass | HubsClass | ChatroomClass | IntegrationClass | OnlineClass>;
  }

  /**
   * How fast and how long a class sends. Open: one of rate / ratePerMinute
   * (per conversation), totalRate (over the class) or stages (ramping the
   * class's total rate from startRate, k6 ramping-arrival-rate style; their
   * length is the class's); messages fall due on a schedule and the lag
   * behind it is measured. Closed: inFlight messages per sender, each sent
   * once one is acknowledged; the result is the rate achieved. Length:
   * messages (per sender per conversation), duration or stopAt. pace (open only):
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
    /** open only: its messages fall due from this long after sending begins ('30s') */
    startAt?: string;
    /** open only: its messages stop falling due then ('45s'); it sets the length (no messages or duration with it) */
    stopAt?: string;
    /** all the class's messages (messages per sender per conversation) at one instant this long after sending begins ('30s'), each sender's back to back; no rate with it */
    burstAt?: string;
    /** open only: this many messages of each conversation (its senders taking turns; each direction of a hubs one) due together at the class's start, back to back, before its rate goes on; they add to it */
    burst?: number;
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
   * loginAt puts the online ones' login on the timeline instead: they log in
   * that long after sending begins, pull what they missed, then take pushes.
   */
  export interface Presence {
    online?: number;
    onlineShare?: number;
    late?: number;
    lateShare?: number;
    watchers?: number;
    allOnline?: boolean;
    /** The online receivers log in this long after sending begins ('20s'), not before it. */
    loginAt?: string;
    /** The share of the online receivers that log in at loginAt (default: all); the others are online from the start. */
    loginAtShare?: number;
    /** Spread those logins evenly over this long from loginAt (from the start of sending without it), the last at its end ('20s'). */
    loginOver?: string;
    /**
     * Spells logged out: the receivers online by then, whenever they logged in (`share` of them, all where not given), log out
     * `at` after sending begins and log in again `for` later, pulling what they missed: [{ at: '20s', for: '10s' }].
     */
    away?: Array<{ at: string; for: string; share?: number }>;
  }

  /**
   * A named set of users (scaled) with its presence: where it says none, all
   * are online for the whole test. Its users who send must log in while
   * sending (online, or at loginAt: they write from then on), and write nothing
   * while away for a spell: a class of theirs sends for a time, at its rate
   * in each conversation while its writer is online.
   */
  export interface Population extends Presence {
    users: number;
  }

  /** A population's name, or { name: members from it, … } in order (a group's first members first). */
  export type Draw = string | Record<string, number>;

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
    /** per group; with from as { name: count } it is their sum and may be left out */
    members?: number;
    senders?: number;
    shared?: boolean;
    sameMembers?: boolean;
    /** members from populations instead of users of the class's own: group i takes the next ones of each, in turn; no presence with it */
    from?: Draw;
  }

  /**
   * One-to-one chats around hubs: each of `hubs` users talks with `partners` users of its own
   * (support agents and their customers, a bot and its users). direction: 'both' (the default:
   * each conversation carries the hub's messages and the partner's), 'toPartners' or 'toHubs'.
   * Hubs are online; Presence says which partners are (all, where it says nothing); a partner that
   * logs in at loginAt writes from then on. Rates per conversation and direction, or over the class
   * (totalRate, stages).
   */
  export interface HubsClass extends Pace, Presence {
    kind: 'hubs';
    hubs: number;
    partners: number;
    direction?: 'both' | 'toPartners' | 'toHubs';
    /** hubs and partners from populations instead of users of the class's own: hub i is the i-th of `hubs`, its partners the next of `partners`; no presence with it */
    from?: { hubs: string; partners: string };
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
    /** a population's name: `pairs` pairs of its users no other class has (neighbours first), each written by one online; no presence with it */
    from?: string;
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
    /** users whose login is at a time after sending begins (loginAt) */
    readonly timed: number;
    readonly never: number;
    readonly groups: number;
    readonly friendships: number;
    /** -1 when only a duration bounds a closed class */
    readonly messages: number;
    readonly rate: number;
    /** sending time at the plan's pace */
    readonly seconds: number;
  }

  /**
   * A scenario's `export function handleSummary(summary)`: what it returns, by name, is printed
   * (`stdout`, `stderr`) or written (a name relative to the run's folder, or an absolute path).
   */
  export type HandleSummary = (summary: Summary) => Record<string, string>;

  // Generated from docs/summary.schema.json by `make generate`; do not edit by hand.
  /** summary.json as handleSummary receives it, with the run's thresholds */
  export interface Summary {
    deliveries: DeliveriesSummary;
    ended_at: string;
    execution_segment: string;
    /** how many the run was split over */
    execution_segments: number;
    generator: GeneratorSummary;
    groups: GroupsSummary;
    /** e2e, ack, login: to merge partial summaries exactly */
    histograms: Record<string, Encoded>;
    /** Integrity is the share of expected deliveries that arrived: null in summary.json when none was expected (a chatroom's have their own, Deliveries.Rooms). */
    integrity: number | null;
    latency_ms: { ack: LatencySummary; e2e: LatencySummary };
    /** what logging in cost (absent in older summaries) */
    logins: LoginsSummary | null;
    messages: MessagesSummary;
    /** segments of the run that wrote no summary */
    missing_parts: string[];
    /** users dropped and their way back */
    outages: Outages | null;
    /** the execution segments merged into this one */
    parts: string[];
    purpose: string;
    run_id: string;
    scenario: string;
    /** the target may run on (its affinity where it runs here), for per-core rates */
    server_cores: number;
    setup: SetupSummary;
    started_at: string;
    system: string;
    target: string;
    target_api: string;
    users: UsersSummary;
    versions: Record<string, string>;
    warnings: string[];
    /** kind and parameters of each class, as built */
    workload: unknown;
    /** the run's thresholds, as checked (handleSummary's, not summary.json's) */
    thresholds: Threshold[];
  }
  export interface ClassSends {
    /** 1 for the workload's first class */
    class: number;
    first_send_ms: number;
    last_send_ms: number;
    /** paced by the plan; a closed class sends as fast as answered */
    open: boolean;
    /** PlannedSeconds is an open class's sending time at its pace. */
    planned_seconds: number;
    sent: number;
    /** queued or still to send when the send phase ended */
    unsent: number;
  }
  export interface DeliveriesByClass {
    /** 1 for the workload's first class */
    class: number;
    duplicates: number;
    /** Expected is the deliveries its acknowledged messages were owed (to users who never got online too: not_attempted is not taken out here); Received the first arrivals of them (pulled or pushed, to the drain's end). */
    expected: number;
    /** InFlight is how many messages a sender had unacknowledged at most: 1 when each send waited for its acknowledgement (open pacing too). */
    in_flight: number;
    /** pairs, groups, chatroom, integration */
    kind: string;
    /** MaxInFlight is the most a sender had unacknowledged, as it ran: at most InFlight; 0 where nothing was sent. */
    max_in_flight: number;
    out_of_order: number;
    received: number;
  }
  export interface DeliveriesByPopulation {
    duplicates: number;
    expected: number;
    out_of_order: number;
    population: string;
    received: number;
    users: number;
  }
  export interface DeliveriesByType {
    duplicates: number;
    expected: number;
    late: number;
    lost: number;
    lost_never_stored: number;
    not_attempted: number;
    out_of_order: number;
    pushed_after_pull: number;
    received: number;
    unchecked: number;
  }
  export interface DeliveriesSummary {
    /** the workload's classes that send, in its order */
    by_class: DeliveriesByClass[];
    /** ByGapPull is the part of ByPull the server owed a push and never pushed: fetched after a sequence gap, by the drain's sync, or by a login's sync when sent before the user left. */
    by_gap_pull: number;
    /** ByPopulation is the workload's populations, in name order, by receiver. */
    by_population: DeliveriesByPopulation[];
    by_pull: number;
    by_reconnect_pull: number;
    /** ByReturnPull and ByReconnectPull are the parts of ByPull sent while the user was away for a spell, or dropped, found by its login after. */
    by_return_pull: number;
    by_type: Record<string, DeliveriesByType>;
    corrupted: number;
    duplicates: number;
    expected: number;
    foreign: number;
    /** Late were owed and not delivered by the end of the drain, while the server holds their messages (the store check read them back): not lost, not delivered either. */
    late: number;
    /** Lost were owed and never arrived, and the server does not hold their messages as far as the store check could tell (or it did not ask). */
    lost: number;
    /** LostNeverStored is the part of Lost the store check read and did not find: the server acknowledged those messages and never stored them. */
    lost_never_stored: number;
    lost_sample: LostDelivery[];
    /** Owed to users who never got online (Users.NeverOnline): the server had no chance to deliver them. */
    not_attempted: number;
    /** Deliveries of unanswered sends (Messages.Unanswered): the server stored them and answered late or never. Not in expected, not unexpected. */
    of_unanswered: number;
    out_of_order: number;
    pushed: number;
    /** Pushes of messages the user already had by pull (its gap or sync pull met a push that was only late): no delivery, no duplicate. */
    pushed_after_pull: number;
    received: number;
    /** not in the figures above */
    rooms: RoomsSummary | null;
    store_check: StoreCheckSummary | null;
    /** Unchecked were owed and not delivered by the end of the drain, and the server did not answer the store check's read of them (within IM_STORE_CHECK, each read tried three times): whether it holds their messages is not known, so neither late nor lost. */
    unchecked: number;
    unexpected: number;
    watchers: WatchersSummary | null;
  }
  export interface Encoded {
    hdr: string;
    max_us: number;
    sum_us: number;
  }
  export interface GeneratorProcess {
    /** which of them that is, in words */
    bound: string;
    /** the cores it could use: the least of its GOMAXPROCS, CPU affinity and CPU quota */
    cores: number;
    /** user and system time over the run */
    cpu_seconds: number;
    /** the machine or pod it ran on */
    host: string;
    /** its cgroup's CPU quota in cores (0: none) */
    quota_cores: number;
    /** its segment's interval ("1/4:1/2"), "0:1" for a whole run */
    segment: string;
    /** Throttled is the share of its quota's scheduling periods in which the quota held it back (0..1; 0 without a quota). */
    throttled: number;
  }
  export interface GeneratorSummary {
    /** GapPullRequests are the pulls among them for a seq missing below one that arrived, half a second after it was noticed. */
    gap_pull_requests: number;
    goroutines: number[];
    goroutines_every_seconds: number;
    /** The k6 process's goroutines, one count every GoroutinesEverySeconds from GoroutinesStartMs (one process's: not merged over segments). */
    goroutines_start_ms: number;
    heartbeats_sent: number;
    /** HeartbeatsSkipped are ping periods in which a connection pinged after silence (Wildfire's) had sent other packets, so needed no ping. */
    heartbeats_skipped: number;
    /** Processes are the generator's processes, one a segment of a split run, each with the cores it could use and how far its CPU quota held it back over the run. */
    processes: GeneratorProcess[];
    pull_requests: number;
    /** [first, last+1) of the users each VU held */
    user_ranges: number[][];
    vus: number;
  }
  export interface GroupsSummary {
    /** members → groups of that size */
    by_size: Record<string, number>;
    count: number;
    friendships: number;
  }
  export interface LatencySummary {
    avg: number;
    count: number;
    max: number;
    /** received before created: the clocks disagree */
    negative: number;
    p50: number;
    p95: number;
    p99: number;
  }
  export interface LoginCauses {
    /** the server closed the connection before it answered the login */
    closed: number;
    /** ConnRefused: the dial was refused, nothing listened (a server restarting, or down). */
    conn_refused: number;
    /** no answer in time (a silent refusal looks the same) */
    no_answer: number;
    /** OpenFiles: the generator could not open a socket, its open files at their limit (ulimit -n, or the system's); Ports: no local port left to dial from. Limits of the load machine, not the server's. */
    open_files: number;
    /** the dial otherwise, TLS, a malformed answer */
    other: number;
    ports: number;
    /** the server answered with a refusal */
    refused: number;
  }
  export interface LoginsSummary {
    count: number;
    /** online, but a request of their sync failed */
    failed: number;
    /** the client's login: OpenIM's "light" or "sdk" */
    mode: string;
    /** made by those logins */
    requests: number;
    requests_per_login: number;
    /** from the dial to the sync's end */
    time_to_online_ms: LatencySummary;
  }
  export interface LostDelivery {
    conv: number;
    n: number;
    receiver: number;
    sender: number;
  }
  export interface MessagesSummary {
    acked: number;
    avg_per_second: number;
    /** some open classes send each second's messages at its start */
    burst_pacing: boolean;
    /** ByClass is what each class that sends sent: the pace check judges each open class on its own. */
    by_class: ClassSends[];
    /** some classes send as fast as acknowledged */
    closed_pacing: boolean;
    /** Dispatches counts, per acknowledged message, every member of its conversation, the sender included: Wildfire's 分发数. */
    dispatches: number;
    first_send_ms: number;
    last_send_ms: number;
    max_send_lag_ms: number;
    /** OpenPerSecond counts the open classes' sends in the same seconds where closed classes send beside them (empty otherwise: PerSecond is theirs): what PlannedPerSecond is compared with. */
    open_per_second: number[];
    peak_per_second: number;
    /** PerSecond counts the sends in each of the run's own seconds, from PerSecondStartMs: a burst within one second is one second's count. */
    per_second: number[];
    /** PerSecondStartMs is when the run's first second began (unix ms): when its plan's first message fell due, all processes of a split run counting from the same. */
    per_second_start_ms: number;
    /** -1: bounded by time only */
    planned: number;
    /** PlannedPerSecond is what the plan had fall due in each of the same seconds: open classes only, empty where every class is closed. */
    planned_per_second: number[];
    /** of the open classes */
    planned_rate: number;
    /** PlannedSeconds is the plan's sending time at its pace (0: closed classes only, which have none). */
    planned_seconds: number;
    send_failed: number;
    sent: number;
    sent_by_type: Record<string, number>;
    /** Unanswered got no answer within the driver's timeout: not failed, since the server may have stored them (Deliveries.OfUnanswered). */
    unanswered: number;
    /** Unsent were still queued, or not yet due, when the send phase ended: the generator or the server did not keep the planned pace. */
    unsent: number;
  }
  export interface Outage {
    /** BackOnlineMs is End−Start: the time back to all online. */
    back_online_ms: number;
    dropped: number;
    /** zero: still open when the run ended */
    end: string;
    gave_up: number;
    peak_reconnects_per_second: number;
    per_second_start: number;
    reconnects: number;
    /** ReconnectsPerSecond counts reconnects per wall-clock second from PerSecondStart (unix). */
    reconnects_per_second: number[];
    start: string;
  }
  export interface Outages {
    omitted: number;
    windows: Outage[];
  }
  export interface RoomsSummary {
    /** arrived at members who joined after it was sent */
    before_join: number;
    /** members present when each acknowledged message was sent */
    expected: number;
    /** Integrity is the share of those expected that arrived, (expected − missed) / expected; null when none was expected. */
    integrity: number | null;
    miss_rate: number;
    missed: number;
    /** OfUnanswered and Unexpected are deliveries of sends the server did not answer in time, and of sends that failed: in neither figure above. */
    of_unanswered: number;
    /** Received are the members' deliveries of acknowledged messages. */
    received: number;
    unexpected: number;
  }
  export interface SetupSummary {
    /** WritesRedone are setup's writes the server answered with a timeout and setup made again (a Wildfire behind answers 249 and does them). */
    writes_redone: number;
  }
  export interface StoreCheckSummary {
    /** the first failed read, or why it stopped */
    error: string;
    /** Messages: owed messages the server holds, and those it does not. */
    messages_held: number;
    messages_never_stored: number;
    /** more were owed than it lists: the rest stay lost */
    not_listed: boolean;
    /** deliveries owed when the drain ended, listed for the check */
    owed: number;
    /** Ran: the check read the server's store; false with Skipped saying why not (nothing was owed after the drain, IM_STORE_CHECK=off, …). */
    ran: boolean;
    /** users to read */
    readers: number;
    /** users logged in to read: the rest were not reached in time */
    reads: number;
    /** reads that failed every try or ran out of time */
    reads_failed: number;
    /** reads tried again after a failure */
    retries: number;
    seconds: number;
    skipped: string;
    /** how often a read is tried at most */
    tries_per_read: number;
    /** owed deliveries no read covered: deliveries.unchecked */
    unchecked: number;
  }
  export interface UsersSummary {
    connect_errors: number;
    /** DisconnectCauses splits Disconnects by why each connection ended: server_closed, heartbeat (nothing within the read timeout), kicked, read_error. */
    disconnect_causes: Record<string, number>;
    disconnects: number;
    /** An idle-holding run: how long its users were held online together, once all had logged in (a split run's: its shortest part). */
    held_seconds: number;
    kicks: number;
    late_logins: number;
    /** Login attempts that failed, first logins and reconnects alike, by cause, and the attempts made again after a failure of each cause (absent in older summaries and when none failed). */
    login_failures: LoginCauses | null;
    login_retries: LoginCauses | null;
    logins: number;
    logins_back: number;
    /** Logouts are users logging out for a spell away (a class's away), and LoginsBack their logins after it, each pulling what it missed. */
    logouts: number;
    /** Users due to log in (at once or late) whose every login attempt failed: what they were owed is Deliveries.NotAttempted. */
    never_online: number;
    newly_registered: number;
    /** First logins that got online after a failed attempt. */
    online_after_retry: number;
    online_peak: number;
    planned_immediate: number;
    planned_late: number;
    /** PlannedTimed log in at a time after sending begins (loginAt). */
    planned_timed: number;
    reconnects: number;
    registered: number;
    /** TimedLogins logged in at their time on the run's timeline (loginAt), in Logins as the late ones are. */
    timed_logins: number;
  }
  export interface WatchersSummary {
    expected: number;
    received: number;
    users: number;
  }
  /** One threshold as checked: its metric, expression, the figure it read and whether it passed. */
  export interface Threshold {
    metric: string;
    expr: string;
    actual: number;
    passed: boolean;
    /** no figure: a latency with no sample (passes, as in k6) */
    absent?: boolean;
    /** imbench's own integrity threshold, which the scenario did not name */
    implicit?: boolean;
  }
  // End of the generated summary types.

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
