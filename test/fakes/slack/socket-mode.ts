import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { SlackState } from "./state.js";

export type EnvelopeType = "slash_commands" | "interactive" | "events_api";

export interface Envelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: object;
  accepts_response_payload: boolean;
}

/** Slack gives up on an unacknowledged envelope after 3 s. */
const ACK_TIMEOUT_MS = 3_000;
const HOST = "applink-fake-0";

/** Slack takes a response in the ack for commands, view submissions and option requests, not for clicks. */
function acceptsResponsePayload(type: EnvelopeType, payload: object): boolean {
  if (type === "slash_commands") return true;
  const kind = "type" in payload ? payload.type : undefined;
  return type === "interactive" && (kind === "view_submission" || kind === "block_suggestion");
}

/** The Socket Mode side: websockets at /link/ opened with a ticket from apps.connections.open. */
export class SocketModeServer {
  readonly envelopes: Envelope[] = [];
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly pending = new Map<string, { resolve(ack: unknown): void; reject(error: Error): void }>();
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly state: SlackState) {}

  get connections(): number {
    return this.sockets.size;
  }

  /** A ticket works once, like the ones in Slack's wss URLs. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://fake");
    if (url.pathname !== "/link/" || !this.state.socketTickets.delete(url.searchParams.get("ticket") ?? "")) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  /** Resolves once a client holds an open connection (it has been sent `hello`). */
  connected(): Promise<void> {
    return this.sockets.size > 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Delivers an envelope on the newest connection and resolves with the ack's payload (`{}` for a bare ack). */
  send(type: EnvelopeType, payload: object): Promise<unknown> {
    const ws = [...this.sockets].at(-1);
    if (!ws) return Promise.reject(new Error("fake Slack: no Socket Mode connection"));
    const envelope: Envelope = {
      envelope_id: randomUUID(),
      type,
      payload,
      accepts_response_payload: acceptsResponsePayload(type, payload),
    };
    this.envelopes.push(envelope);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(envelope.envelope_id);
        reject(new Error(`fake Slack: envelope ${envelope.envelope_id} (${type}) not acked within 3 s`));
      }, ACK_TIMEOUT_MS);
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        this.pending.delete(envelope.envelope_id);
        fn();
      };
      this.pending.set(envelope.envelope_id, {
        resolve: (ack) => settle(() => resolve(ack)),
        reject: (error) => settle(() => reject(error)),
      });
      ws.send(JSON.stringify(envelope));
    });
  }

  /** Slack's notice before it recycles a connection; the client reconnects through apps.connections.open. */
  disconnect(reason = "refresh_requested"): void {
    const message = JSON.stringify({ type: "disconnect", reason, debug_info: { host: HOST } });
    for (const ws of this.sockets) ws.send(message);
  }

  async close(): Promise<void> {
    for (const { reject } of this.pending.values()) reject(new Error("fake Slack: closed"));
    for (const ws of this.sockets) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private accept(ws: WebSocket): void {
    this.sockets.add(ws);
    ws.on("close", () => this.sockets.delete(ws));
    ws.on("message", (data) => this.onMessage(data));
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.sockets.size,
        debug_info: { host: HOST, build_number: 1, approximate_connection_time: 18_060 },
        connection_info: { app_id: this.state.appId },
      }),
    );
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  private onMessage(data: RawData): void {
    let ack: { envelope_id?: unknown; payload?: unknown };
    try {
      ack = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (typeof ack.envelope_id === "string") this.pending.get(ack.envelope_id)?.resolve(ack.payload ?? {});
  }
}
