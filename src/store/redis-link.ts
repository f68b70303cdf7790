import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type RedisClientType } from "@keyv/redis";
import type { Logger } from "pino";
import type { StoreAvailability } from "./availability.js";
import { StoreError } from "./errors.js";
import { storeFailovers, storeNode, storeReplicaAckSeconds } from "./metrics.js";

/**
 * The bot's connections to Redis, kept on the primary through a failover: Redis Sentinel
 * (REDIS_SENTINELS, REDIS_SENTINEL_NAME) or a managed Redis whose address moves to the new primary
 * (STORE_URL alone: its name is resolved again at every connection).
 *
 * Which part does what. node-redis (@redis/client) speaks the protocol: one plain client per
 * connection, its commands, scripts and pub/sub. This module decides where to connect and when
 * to leave: it asks the sentinels for the primary (SENTINEL get-master-addr-by-name), checks with
 * ROLE that the node answers as a primary (a stale sentinel, or a name not yet moved, gets a retry),
 * and drops its connections for new ones when a connection fails or the node turns out to be a
 * replica (ROLE every second: a demoted primary keeps its connections open). @keyv/redis keeps
 * the records of every namespace on `client`, which always stands for the current connection.
 *
 * node-redis's own Sentinel client (createSentinel, which @keyv/redis accepts too) is not used:
 * it sends a command again on the new primary when its connection dropped before the answer,
 * which would apply a budget reservation or a settlement twice (their scripts landed, their
 * answers were lost); while the primary is away it holds commands (retrying discovery in a tight
 * loop) instead of failing them, where the bot refuses commands at once and waits on its own
 * (availability.ts); and it writes its discovery errors to stdout with console.log.
 *
 * Here a connection that fails is closed, never reconnected as it is: every command on it fails
 * at once (an outage, availability.ts), and a new connection, to the primary as known now,
 * replaces it. Commands are never sent twice by this layer.
 *
 * The writes the once-only guarantees rest on are acknowledged by a replica before the bot acts
 * on them (`replicated`): WAIT on a connection of its own (the "lane"), so that the wait holds
 * nobody else's commands. WAIT covers the writes of the connection it runs on, up to that
 * connection's last write: the lane writes a key of its own first, after the writes it vouches
 * for were answered, so its offset is past theirs. Every acknowledgement asked for while one is on
 * its way is covered by the next: one SET and one WAIT (one round trip) for all of them.
 */

export interface RedisNode {
  host: string;
  port: number;
}

export interface SentinelSetting {
  /** Any of the sentinels; the first that answers names the primary. */
  nodes: readonly RedisNode[];
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> …`). */
  name: string;
}

/** A point in the store's writes: `replicated` waits for the writes made after it. */
export interface WriteCheckpoint {
  readonly connection: number;
}

/** Where the link stands, for /readyz and the metrics. */
export interface LinkState {
  /** The primary the bot is on (`host:port`); undefined while it has none. */
  node: string | undefined;
  /** Replicas in sync with it, by its last ROLE. */
  replicas: number;
  /** Times the bot found the primary elsewhere than before since it started. */
  failovers: number;
}

export interface RedisLink {
  /** Stands for the current connection to the primary: commands go to whichever that is. */
  readonly client: RedisClientType;
  state(): LinkState;
  checkpoint(): WriteCheckpoint;
  /**
   * Resolves once a replica holds every write made since `from` (and before this call), or at
   * once when the primary has no replica in sync (nothing could be promoted without them). Throws
   * `store.unavailable` when the connection changed since `from`: a write of the old one may not
   * have reached any replica, and a caller that cannot tell should treat it as not made.
   */
  replicated(from: WriteCheckpoint): Promise<void>;
  /** Why acknowledgements wait, when a replica in sync has not answered for a while. */
  lagging(): string | undefined;
  publish(channel: string, message: string): Promise<void>;
  /** Messages of `channel`, from every process on the store, this one included. */
  subscribe(channel: string, listener: (message: string) => void): void;
  unsubscribe(channel: string, listener: (message: string) => void): void;
  close(): Promise<void>;
}

export interface LinkOptions {
  url: string;
  sentinel?: SentinelSetting;
  availability: StoreAvailability;
  logger?: Pick<Logger, "warn" | "info">;
}

/** At start redis may still be coming up (compose, k8s); after that a bad setting is an error. */
const FIRST_CONNECT_MS = 10_000;
/**
 * A redis that stops answering without closing the connection (a network partition, a paused
 * server) would hold commands until TCP gives up, minutes later; node-redis's own command timeout
 * ends only a command not yet written. So a connection closes after this long without a byte
 * either way, which fails every command waiting on it.
 */
const SILENCE_MS = 10_000;
/** ROLE on the primary: a demoted primary keeps its connections; a lost replica frees the acks. */
const ROLE_EVERY_MS = 1_000;
/** Between tries to reach the primary again: short, so that a promotion is followed at once. */
const RETRY_MAX_MS = 500;
/** One WAIT: a replica in sync answers within a round trip; one that does not is asked ROLE about. */
const WAIT_MS = 1_000;
/** The lane's own key, written before each WAIT; it lapses when the process is gone. */
const LANE_KEY_MS = 60_000;
/** An acknowledgement waiting longer than this is told on /readyz. */
const LAG_TOLD_MS = 2_000;

interface Waiting {
  resolve(): void;
  reject(error: unknown): void;
  since: number;
}

/** One set of connections to one primary; replaced whole when any of them fails. */
interface Connection {
  number: number;
  node: string;
  address: RedisNode;
  main: RedisClientType;
  lane?: Promise<RedisClientType>;
  subscriber?: Promise<RedisClientType>;
  replicas: number;
  waiting: Waiting[];
  /** The acknowledgements the WAIT on its way vouches for. */
  round: Waiting[];
  acknowledging: boolean;
  roleTimer?: NodeJS.Timeout;
  ended: boolean;
}

export async function openRedisLink(options: LinkOptions): Promise<RedisLink> {
  const link = new Link(options);
  await link.open();
  return link;
}

class Link implements RedisLink {
  readonly client: RedisClientType;
  readonly #options: LinkOptions;
  readonly #url: URL;
  #current: Connection | undefined;
  /** The last main client, closed or not: commands between two connections fail on it at once. */
  #last: RedisClientType | undefined;
  #numbers = 0;
  #node: string | undefined;
  #failovers = 0;
  #closed = false;
  #reconnecting: Promise<void> | undefined;
  #lastCause: unknown;
  /** The sentinel that answered last is asked first. */
  #sentinels: RedisNode[];
  readonly #channels = new Map<string, Set<(message: string) => void>>();
  readonly #laneKey = `store:lane:${randomUUID()}`;
  #laneWrites = 0;

  constructor(options: LinkOptions) {
    this.#options = options;
    this.#url = new URL(options.url);
    this.#sentinels = [...(options.sentinel?.nodes ?? [])];
    const link = this;
    this.client = new Proxy({} as RedisClientType, {
      get(_target, property) {
        // @keyv/redis connects a client it finds closed: this one is never its to connect.
        if (property === "isOpen") return !link.#closed;
        if (property === "connect") return async () => link.client;
        const client = link.#current?.main ?? link.#last;
        if (!client) throw new StoreError("store.unavailable", "redis is not connected");
        const value = Reflect.get(client, property, client);
        return typeof value === "function" ? value.bind(client) : value;
      },
    });
  }

  /** Connects within FIRST_CONNECT_MS, or throws the line the operator needs. */
  async open(): Promise<void> {
    const startedAt = Date.now();
    for (let tries = 0; ; tries++) {
      try {
        this.#install(await this.#connect());
        return;
      } catch (error) {
        if (error instanceof StoreError && error.code === "store.config") throw error;
        this.#lastCause = error;
        if (Date.now() - startedAt > FIRST_CONNECT_MS) throw this.#unreachable(error);
        await sleep(Math.min(100 * 2 ** tries, 2_000));
      }
    }
  }

  state(): LinkState {
    return {
      node: this.#current?.node,
      replicas: this.#current?.replicas ?? 0,
      failovers: this.#failovers,
    };
  }

  checkpoint(): WriteCheckpoint {
    return { connection: this.#current?.number ?? -1 };
  }

  replicated(from: WriteCheckpoint): Promise<void> {
    const connection = this.#current;
    if (!connection || connection.number !== from.connection) return Promise.reject(changed());
    if (connection.replicas === 0) {
      storeReplicaAckSeconds.observe(0);
      return Promise.resolve();
    }
    const since = performance.now();
    return new Promise<void>((resolve, reject) => {
      connection.waiting.push({ resolve, reject, since: Date.now() });
      void this.#acknowledge(connection);
    }).then(() => storeReplicaAckSeconds.observe((performance.now() - since) / 1000));
  }

  lagging(): string | undefined {
    const connection = this.#current;
    const oldest = (connection?.round[0] ?? connection?.waiting[0])?.since;
    if (!connection || oldest === undefined || Date.now() - oldest < LAG_TOLD_MS) return undefined;
    const seconds = Math.round((Date.now() - oldest) / 1000);
    return `no replica of redis ${connection.node} acknowledged the store's writes for ${seconds} s (${connection.replicas} in sync by its last word)`;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(channel, message);
  }

  subscribe(channel: string, listener: (message: string) => void): void {
    const listeners = this.#channels.get(channel) ?? new Set();
    listeners.add(listener);
    if (!this.#channels.has(channel)) {
      this.#channels.set(channel, listeners);
      const connection = this.#current;
      if (connection) void this.#listen(connection, [channel]);
    }
  }

  unsubscribe(channel: string, listener: (message: string) => void): void {
    // The channel stays subscribed: a listener may come back, and a quiet channel costs nothing.
    this.#channels.get(channel)?.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const connection = this.#current;
    if (connection) await this.#end(connection, undefined);
    await this.#reconnecting;
  }

  // ---------------------------------------------------------------------------------------------

  /** One try: the primary as known now, connected and checked. */
  async #connect(): Promise<Connection> {
    const address = await this.#primary();
    const main = this.#client(address);
    try {
      await main.connect();
      const cluster = await main.info("cluster");
      if (/^cluster_enabled:1/m.test(cluster)) {
        throw new StoreError(
          "store.config",
          `${this.#setting()}: redis at ${address.host}:${address.port} is a node of a Redis Cluster, which the bot does not support (its scripts and multi-key commands need one primary): use a single primary, with replicas behind Sentinel (REDIS_SENTINELS) if it must survive the loss of a node`,
        );
      }
      const replicas = await primaryReplicas(main);
      if (replicas === undefined)
        throw new Error(
          `redis at ${address.host}:${address.port} is not a primary (a replica, or not yet promoted)`,
        );
      return {
        number: ++this.#numbers,
        node: this.#options.sentinel ? `${address.host}:${address.port}` : await serverAddress(main, address),
        address,
        main,
        replicas,
        waiting: [],
        round: [],
        acknowledging: false,
        ended: false,
      };
    } catch (error) {
      if (main.isOpen) main.destroy();
      throw error;
    }
  }

  /** Where the primary is: the sentinels' answer, or the URL's host (resolved by each connection). */
  async #primary(): Promise<RedisNode> {
    const { sentinel } = this.#options;
    if (!sentinel)
      return { host: this.#url.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(this.#url.port || 6379) };
    const unknown: string[] = [];
    let lastError: unknown;
    for (const node of this.#sentinels) {
      const client: RedisClientType = createClient({
        socket: { ...node, connectTimeout: 1_000, socketTimeout: 2_000, reconnectStrategy: false },
      });
      client.on("error", () => {});
      try {
        await client.connect();
        const reply = await client.sendCommand(["SENTINEL", "get-master-addr-by-name", sentinel.name]);
        if (!Array.isArray(reply) || reply.length < 2) {
          unknown.push(`${node.host}:${node.port}`);
          continue;
        }
        // Asked first next time: the others may be the ones that are down.
        this.#sentinels = [node, ...this.#sentinels.filter((s) => s !== node)];
        return { host: String(reply[0]), port: Number(reply[1]) };
      } catch (error) {
        lastError = error;
      } finally {
        if (client.isOpen) client.destroy();
      }
    }
    if (unknown.length === this.#sentinels.length) {
      throw new StoreError(
        "store.config",
        `REDIS_SENTINEL_NAME: the sentinels (${unknown.join(", ")}) monitor no primary named "${sentinel.name}"`,
      );
    }
    throw lastError instanceof Error ? lastError : new Error("no sentinel answered");
  }

  #client(address: RedisNode, { idle = false } = {}): RedisClientType {
    const url = this.#url;
    const client: RedisClientType = createClient({
      // A connection that may stay quiet (the lane, the subscriber) pings, or its silence would end it.
      ...(idle && { pingInterval: SILENCE_MS / 2 }),
      ...(url.username && { username: decodeURIComponent(url.username) }),
      ...(url.password && { password: decodeURIComponent(url.password) }),
      ...(url.pathname.length > 1 && { database: Number(url.pathname.slice(1)) }),
      // Commands sent while the connection is down fail at once instead of waiting for it.
      disableOfflineQueue: true,
      socket: {
        host: address.host,
        port: address.port,
        ...(url.protocol === "rediss:" && { tls: true as const, servername: url.hostname }),
        connectTimeout: 5_000,
        socketTimeout: SILENCE_MS,
        // A connection that fails is replaced by a new one to the primary as known then.
        reconnectStrategy: false,
      },
    });
    // Each namespace's keyv adapter listens for the client's errors: a dozen listeners is the design.
    client.setMaxListeners(50);
    // Without a listener an error would end the process; a failed connection is told by its user.
    client.on("error", () => {});
    return client;
  }

  #install(connection: Connection): void {
    if (this.#closed) {
      connection.main.destroy();
      return;
    }
    const previous = this.#node;
    this.#current = connection;
    this.#last = connection.main;
    this.#node = connection.node;
    connection.main.on("error", (error: unknown) => this.#failed(connection, error));
    connection.main.on("end", () => void this.#end(connection, new Error("redis connection closed")));
    storeNode.reset();
    storeNode.set({ node: connection.node }, 1);
    if (previous !== undefined && previous !== connection.node) {
      this.#failovers += 1;
      storeFailovers.inc();
      this.#options.logger?.warn(
        { from: previous, to: connection.node, failovers: this.#failovers },
        "store: redis primary changed (failover): now on the new primary",
      );
    }
    this.#checkRole(connection);
    if (this.#channels.size > 0) void this.#listen(connection, [...this.#channels.keys()]);
    this.#options.availability.up();
  }

  /** ROLE every second, one at a time: a demoted primary is left, a replica's count kept current. */
  #checkRole(connection: Connection): void {
    connection.roleTimer = setTimeout(async () => {
      if (connection.ended) return;
      try {
        const replicas = await primaryReplicas(connection.main);
        if (replicas === undefined) {
          await this.#end(
            connection,
            new StoreError("store.unavailable", `redis at ${connection.node} is no longer the primary`),
          );
          return;
        }
        connection.replicas = replicas;
      } catch (error) {
        await this.#end(connection, error);
        return;
      }
      this.#checkRole(connection);
    }, ROLE_EVERY_MS);
    connection.roleTimer.unref();
  }

  /**
   * A client's error: node-redis fails the commands under way with it right after telling it, so
   * the connection ends after that, and they fail with their own cause rather than our closing.
   */
  #failed(connection: Connection, error: unknown): void {
    queueMicrotask(() => void this.#end(connection, error));
  }

  /**
   * Closes every connection of `connection` (its commands under way fail), and unless the link is
   * closing, says the store is away and looks for the primary again.
   */
  async #end(connection: Connection, cause: unknown): Promise<void> {
    if (connection.ended) return;
    connection.ended = true;
    clearTimeout(connection.roleTimer);
    if (this.#current === connection) this.#current = undefined;
    for (const waiting of connection.waiting.splice(0)) waiting.reject(changed(cause));
    // A side connection still on its way closes itself once it finds the connection ended (#side).
    for (const side of [connection.lane, connection.subscriber])
      void side?.then(
        (client) => client.isOpen && client.destroy(),
        () => undefined,
      );
    if (connection.main.isOpen) {
      // A graceful close lets the link's own close wait for the answers under way.
      if (cause === undefined) await connection.main.close().catch(() => undefined);
      else connection.main.destroy();
    }
    if (this.#closed || cause === undefined) return;
    this.#lastCause = cause;
    this.#options.availability.down(cause);
    storeNode.reset();
    this.#reconnect();
  }

  #reconnect(): void {
    this.#reconnecting ??= (async () => {
      for (let tries = 0; !this.#closed; tries++) {
        try {
          this.#install(await this.#connect());
          return;
        } catch (error) {
          this.#lastCause = error;
          await sleep(Math.min(50 * 2 ** tries, RETRY_MAX_MS));
        }
      }
    })().finally(() => {
      this.#reconnecting = undefined;
    });
  }

  /** A second connection to the same primary, ended with the others. */
  async #side(connection: Connection): Promise<RedisClientType> {
    const client = this.#client(connection.address, { idle: true });
    client.on("error", (error: unknown) => this.#failed(connection, error));
    await client.connect();
    if (connection.ended) {
      client.destroy();
      throw changed();
    }
    return client;
  }

  /** Runs WAIT rounds until nothing of `connection` waits for a replica. */
  async #acknowledge(connection: Connection): Promise<void> {
    if (connection.acknowledging) return;
    connection.acknowledging = true;
    try {
      while (connection.waiting.length > 0 && !connection.ended) {
        // Only what was asked before this round's write is vouched for by it.
        const round = connection.waiting.splice(0);
        connection.round = round;
        try {
          connection.lane ??= this.#side(connection);
          const lane = await connection.lane;
          const [, acknowledged] = await Promise.all([
            lane.set(this.#laneKey, String(++this.#laneWrites), {
              expiration: { type: "PX", value: LANE_KEY_MS },
            }),
            lane.wait(1, WAIT_MS),
          ]);
          if (acknowledged < 1) {
            // A replica that left frees the writes; one still in sync keeps them waiting.
            connection.replicas = (await primaryReplicas(connection.main)) ?? 0;
            if (connection.replicas > 0) {
              connection.waiting.unshift(...round);
              continue;
            }
          }
          for (const waiting of round) waiting.resolve();
        } catch (error) {
          for (const waiting of round) waiting.reject(changed(error));
          await this.#end(connection, error);
        }
      }
    } finally {
      connection.round = [];
      connection.acknowledging = false;
    }
  }

  async #listen(connection: Connection, channels: string[]): Promise<void> {
    try {
      connection.subscriber ??= this.#side(connection);
      const subscriber = await connection.subscriber;
      await subscriber.subscribe(channels, (message, channel) => {
        for (const listener of this.#channels.get(channel) ?? []) listener(message);
      });
    } catch (error) {
      await this.#end(connection, error);
    }
  }

  #setting(): string {
    return this.#options.sentinel ? "REDIS_SENTINELS" : "STORE_URL";
  }

  #unreachable(error: unknown): StoreError {
    const reason = message(this.#lastCause ?? error);
    const { sentinel } = this.#options;
    const text = sentinel
      ? `REDIS_SENTINELS: cannot reach the redis primary "${sentinel.name}" through the sentinels ${sentinel.nodes.map((n) => `${n.host}:${n.port}`).join(", ")}: ${reason}`
      : `STORE_URL: cannot reach redis at ${redacted(this.#options.url)}: ${reason}`;
    return new StoreError("store.unreachable", text, { cause: error });
  }
}

/** The number of replicas in sync, when `client`'s node is a primary; undefined when it is not. */
async function primaryReplicas(client: RedisClientType): Promise<number | undefined> {
  const reply = await client.sendCommand(["ROLE"]);
  if (!Array.isArray(reply) || reply[0] !== "master") return undefined;
  return Array.isArray(reply[2]) ? reply[2].length : 0;
}

/** The address the server sees itself at on this connection: the node a moved name led to. */
async function serverAddress(client: RedisClientType, address: RedisNode): Promise<string> {
  try {
    const info = String(await client.sendCommand(["CLIENT", "INFO"]));
    const laddr = /(?:^|\s)laddr=(\S+)/.exec(info)?.[1];
    if (laddr) return laddr;
  } catch {
    // Before Redis 6.2: the name as configured.
  }
  return `${address.host}:${address.port}`;
}

function changed(cause?: unknown): StoreError {
  return new StoreError(
    "store.unavailable",
    "the connection to the redis primary changed before a replica acknowledged the write",
    cause === undefined ? {} : { cause },
  );
}

/** A redis URL may carry a password. */
export function redacted(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
