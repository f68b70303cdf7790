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

interface Session {
  id: string;
  seq: number;
  /** Every dispatch of the session, replayed from the client's `seq` on RESUME. */
  log: { op: 0; t: string; s: number; d: unknown }[];
  socket?: WebSocket;
}

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  ready(sessionId: string): unknown;
  /** GUILD_CREATE payloads that follow READY. */
  guilds(): unknown[];
  onFrame(frame: GatewayFrame): void;
}

// Closing with these ends the session on Discord; discord.js's own 4200 ("resuming") keeps it.
const SESSION_ENDING_CLOSES = new Set([1000, 1001]);

export class Gateway {
  private readonly server = new WebSocketServer({ noServer: true });
  private session: Session | undefined;
  private acksToSkip = 0;
  private sessions = 0;

  constructor(private readonly options: GatewayOptions) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
  }

  get connected(): boolean {
    return this.session?.socket !== undefined;
  }

  /** A session that can still receive dispatches (now, or when it resumes). */
  get hasSession(): boolean {
    return this.session !== undefined;
  }

  /** Sends a dispatch to the bot; while it reconnects the event waits for its RESUME, as on Discord. */
  async dispatch(t: string, d: unknown): Promise<void> {
    const session = this.session;
    if (!session) throw new Error("the bot has no gateway session: log the client in first");
    const frame = { op: 0 as const, t, s: ++session.seq, d };
    session.log.push(frame);
    if (session.socket) await this.send(session.socket, frame);
  }

  /** Does not answer the next `count` heartbeats: discord.js then treats the connection as a zombie and resumes. */
  skipHeartbeatAcks(count: number): void {
    this.acksToSkip += count;
  }

  /** op 7: Discord asks the client to reconnect and resume. */
  async requestReconnect(): Promise<void> {
    const socket = this.session?.socket;
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
          session = this.identify(ws, Number(d.intents ?? 0));
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
      if (SESSION_ENDING_CLOSES.has(code) && this.session === session) this.session = undefined;
    });
  }

  private identify(ws: WebSocket, intents: number): Session {
    this.sessions += 1;
    const session: Session = { id: `fake-session-${this.sessions}`, seq: 0, log: [], socket: ws };
    this.session?.socket?.close(GatewayCloseCodes.SessionTimedOut, "Replaced by a new session");
    this.session = session;
    void this.dispatch("READY", this.options.ready(session.id));
    // Discord sends the guilds lazily after READY, and only to clients with the GUILDS intent.
    if (intents & GatewayIntentBits.Guilds)
      for (const guild of this.options.guilds()) void this.dispatch("GUILD_CREATE", guild);
    return session;
  }

  private resume(ws: WebSocket, sessionId: string, seq: number): Session | undefined {
    const session = this.session;
    if (!session || session.id !== sessionId) {
      void this.send(ws, { op: GatewayOpcodes.InvalidSession, d: false });
      return undefined;
    }
    session.socket = ws;
    for (const frame of session.log) if (frame.s > seq) void this.send(ws, frame);
    void this.dispatch("RESUMED", null);
    return session;
  }
}
