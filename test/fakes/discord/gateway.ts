import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { GatewayCloseCodes, GatewayIntentBits, GatewayOpcodes } from "discord-api-types/v10";
import { type WebSocket, WebSocketServer } from "ws";

/** One gateway frame, as the fake received or sent it. */
export interface GatewayFrame {
  direction: "received" | "sent";
  op: number;
  t?: string;
  s?: number;
}

/** `[shard_id, num_shards]`, as IDENTIFY and READY carry it. */
export type ShardKey = [id: number, count: number];

/** Discord's rule: a guild's events go to shard (guild_id >> 22) % num_shards; DMs to shard 0. */
export function shardOf(guildId: string | undefined, count: number): number {
  return guildId === undefined ? 0 : Number((BigInt(guildId) >> 22n) % BigInt(count));
}

interface Session {
  id: string;
  shard: ShardKey;
  seq: number;
  /** Every dispatch of the session, replayed from the client's `seq` on RESUME. */
  log: { op: 0; t: string; s: number; d: unknown }[];
  socket?: WebSocket;
}

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  ready(sessionId: string, shard: ShardKey): unknown;
  /** GUILD_CREATE payloads that follow READY: the shard's guilds. */
  guilds(shard: ShardKey): unknown[];
  onFrame(frame: GatewayFrame): void;
}

// Closing with these ends the session on Discord; discord.js's own 4200 ("resuming") keeps it.
const SESSION_ENDING_CLOSES = new Set([1000, 1001]);

/**
 * The gateway of one bot: one session per shard. A client that names no shard in IDENTIFY is
 * shard [0, 1] and gets every guild; with sharding, each session gets the guilds of its shard
 * and their events, as Discord routes them.
 */
export class Gateway {
  private readonly server = new WebSocketServer({ noServer: true });
  /** By shard id. */
  private readonly sessions = new Map<number, Session>();
  private acksToSkip = 0;
  private started = 0;

  constructor(private readonly options: GatewayOptions) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
  }

  /** Whether some shard is connected. */
  get connected(): boolean {
    return [...this.sessions.values()].some((session) => session.socket !== undefined);
  }

  /** A session that can still receive dispatches (now, or when it resumes). */
  get hasSession(): boolean {
    return this.sessions.size > 0;
  }

  /** The `[id, count]` of every session, by shard id. */
  get shards(): ShardKey[] {
    return [...this.sessions.values()].map((session) => session.shard).sort((a, b) => a[0] - b[0]);
  }

  /**
   * Sends a dispatch to the shard that has `guildId` (shard 0 for none); while it reconnects the
   * event waits for its RESUME, as on Discord.
   */
  async dispatch(t: string, d: unknown, guildId?: string): Promise<void> {
    const session = [...this.sessions.values()].find(
      (candidate) => shardOf(guildId, candidate.shard[1]) === candidate.shard[0],
    );
    if (!session) {
      throw new Error(
        `no gateway session has the shard of ${guildId ? `guild ${guildId}` : "DMs"}: log the client in first`,
      );
    }
    await this.dispatchTo(session, t, d);
  }

  private async dispatchTo(session: Session, t: string, d: unknown): Promise<void> {
    const frame = { op: 0 as const, t, s: ++session.seq, d };
    session.log.push(frame);
    if (session.socket) await this.send(session.socket, frame);
  }

  /** Does not answer the next `count` heartbeats: discord.js then treats the connection as a zombie and resumes. */
  skipHeartbeatAcks(count: number): void {
    this.acksToSkip += count;
  }

  /** op 7: Discord asks the client to reconnect and resume (shard 0's connection by default). */
  async requestReconnect(shardId = 0): Promise<void> {
    const socket = this.sessions.get(shardId)?.socket;
    if (!socket) throw new Error("no gateway connection to ask for a reconnect");
    await this.send(socket, { op: GatewayOpcodes.Reconnect, d: null });
  }

  async close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private send(socket: WebSocket, frame: { op: number; d: unknown; t?: string; s?: number }): Promise<void> {
    this.options.onFrame({ direction: "sent", op: frame.op, ...(frame.t ? { t: frame.t, s: frame.s } : {}) });
    // A frame lost to a closing socket is not an error: dispatches are replayed from the log on RESUME.
    return new Promise((resolve) =>
      socket.send(JSON.stringify({ t: null, s: null, ...frame }), () => resolve()),
    );
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    const query = new URL(req.url ?? "/", "ws://fake.invalid").searchParams;
    if (query.get("v") !== "10" || query.get("encoding") !== "json") {
      // discord.js asks for ?v=10&encoding=json; anything else is a client the fake does not speak to.
      ws.close(GatewayCloseCodes.InvalidAPIVersion, "Only v=10 with encoding=json");
      return;
    }
    let session: Session | undefined;
    void this.send(ws, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: this.options.heartbeatIntervalMs },
    });

    ws.on("message", (raw) => {
      let frame: { op?: number; d?: Record<string, unknown> | number | null };
      try {
        frame = JSON.parse(raw.toString());
      } catch {
        return ws.close(GatewayCloseCodes.DecodeError, "Error while decoding payload.");
      }
      const op = frame.op ?? -1;
      this.options.onFrame({ direction: "received", op });
      const d = typeof frame.d === "object" && frame.d !== null ? frame.d : {};
      switch (op) {
        case GatewayOpcodes.Heartbeat:
          if (this.acksToSkip > 0) this.acksToSkip -= 1;
          else void this.send(ws, { op: GatewayOpcodes.HeartbeatAck, d: null });
          return;
        case GatewayOpcodes.Identify:
          if (session) return ws.close(GatewayCloseCodes.AlreadyAuthenticated, "Already authenticated.");
          if (d.token !== this.options.token)
            return ws.close(GatewayCloseCodes.AuthenticationFailed, "Authentication failed.");
          {
            const shard = (d.shard ?? [0, 1]) as unknown;
            if (!isShardKey(shard)) return ws.close(GatewayCloseCodes.InvalidShard, "Invalid shard.");
            session = this.identify(ws, Number(d.intents ?? 0), shard);
          }
          return;
        case GatewayOpcodes.Resume:
          if (d.token !== this.options.token)
            return ws.close(GatewayCloseCodes.AuthenticationFailed, "Authentication failed.");
          session = this.resume(ws, String(d.session_id), Number(d.seq ?? 0));
          return;
        case GatewayOpcodes.PresenceUpdate:
        case GatewayOpcodes.VoiceStateUpdate:
        case GatewayOpcodes.RequestGuildMembers:
          if (!session) ws.close(GatewayCloseCodes.NotAuthenticated, "Not authenticated.");
          return;
        default:
          ws.close(GatewayCloseCodes.UnknownOpcode, "Unknown opcode.");
      }
    });

    ws.on("close", (code) => {
      if (!session || session.socket !== ws) return;
      session.socket = undefined;
      if (SESSION_ENDING_CLOSES.has(code) && this.sessions.get(session.shard[0]) === session)
        this.sessions.delete(session.shard[0]);
    });
  }

  private identify(ws: WebSocket, intents: number, shard: ShardKey): Session {
    this.started += 1;
    const session: Session = { id: `fake-session-${this.started}`, shard, seq: 0, log: [], socket: ws };
    const replaced = this.sessions.get(shard[0]);
    replaced?.socket?.close(GatewayCloseCodes.SessionTimedOut, "Replaced by a new session");
    this.sessions.set(shard[0], session);
    void this.dispatchTo(session, "READY", this.options.ready(session.id, shard));
    // Discord sends the guilds lazily after READY, and only to clients with the GUILDS intent.
    if (intents & GatewayIntentBits.Guilds)
      for (const guild of this.options.guilds(shard)) void this.dispatchTo(session, "GUILD_CREATE", guild);
    return session;
  }

  private resume(ws: WebSocket, sessionId: string, seq: number): Session | undefined {
    const session = [...this.sessions.values()].find((candidate) => candidate.id === sessionId);
    if (!session) {
      void this.send(ws, { op: GatewayOpcodes.InvalidSession, d: false });
      return undefined;
    }
    session.socket = ws;
    for (const frame of session.log) if (frame.s > seq) void this.send(ws, frame);
    void this.dispatchTo(session, "RESUMED", null);
    return session;
  }
}

/** A shard Discord accepts: `[id, count]` with 0 <= id < count. */
function isShardKey(value: unknown): value is ShardKey {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    value.every((n) => Number.isInteger(n)) &&
    value[1] >= 1 &&
    value[0] >= 0 &&
    value[0] < value[1]
  );
}
