// The room's WebSocket (docs/protocol.md): hello with the last version, then snapshots
// and events; actions, rack layouts and queries carry a per-connection sequence number and
// are answered by ack / error / query_result. Reconnects by itself with a back-off
// with jitter (backoff.ts), except after a close that retrying would not mend: 4401 not
// authenticated, 4403 signed out (the token was revoked), 4404 no such room, 4409 the
// seat is played from another device or tab, 4410 the waiting room closed (its owner
// left). The hello names this tab's device id
// (deviceId), so the server tells an older tab that its seat is now played here.
// A message refused with a retry hint (busy, database_unavailable: nothing was played) is
// sent again by request() with a new seq, no sooner than the hint and backing off, a few
// times, before its refusal reaches the page: clients never resend into a storm.
// The page pings every PING_MS; a socket that has brought nothing for SILENT_MS (a server
// node frozen or cut off answers nothing, and its TCP connection may stay up for minutes)
// is left at once for a new one, which the load balancer gives to another node.

import { reconnectDelay } from "./backoff";
import type {
  Ack,
  ActionMessage,
  ClientMessage,
  QueryMessage,
  QueryResult,
  RackMessage,
  ServerMessage,
} from "./protocol.gen";

export interface ServerError {
  code: string;
  message: string;
  /** The server's hint: the message may succeed if sent again after this many ms. */
  retryAfterMs?: number;
}

/** How often request() sends a message again after a refusal with a retry hint. */
export const RETRY_TRIES = 4;

/** A message that gets an answer for its seq (the seq is added here). */
export type Request =
  | Omit<ActionMessage, "seq">
  | Omit<RackMessage, "seq">
  | Omit<QueryMessage, "seq">;
export type Answer = Ack | QueryResult;

interface Waiter {
  resolve: (v: Answer) => void;
  reject: (e: ServerError) => void;
  timer: number;
}

export interface ConnHandlers {
  onMessage: (msg: ServerMessage) => void;
  onStatus: (status: "connecting" | "open" | "lost" | "closed") => void;
  onFatal: (code: number) => void;
  lastVersion: () => number | null;
}

const REPLY_TIMEOUT_MS = 15000;

/** How often the page pings the server (every answer, pong or not, shows it is alive). */
export const PING_MS = 2000;
/** A socket that brought nothing for this long is left for a new one (another node). */
export const SILENT_MS = 6000;

/** Closes after which the connection does not retry by itself. */
export const FATAL_CLOSES = [4003, 4401, 4403, 4404, 4409, 4410];

const DEVICE_KEY = "remi.device";
let fallbackDevice: string | null = null;

function randomId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** This tab's device id: random, kept in sessionStorage (each tab has its own; a reload
 * keeps it), so every connection of the tab names the same device in its hello. */
export function deviceId(): string {
  try {
    let id = sessionStorage.getItem(DEVICE_KEY);
    if (!id) {
      id = randomId();
      sessionStorage.setItem(DEVICE_KEY, id);
    }
    return id;
  } catch {
    fallbackDevice ??= randomId();
    return fallbackDevice;
  }
}

/** What the room page talks through: the server's socket (RoomConnection) or the offline
 * practice's worker (practice/local.ts), with the same messages. */
export interface Transport {
  readonly isOpen: boolean;
  connect(): void;
  close(): void;
  nudge(): void;
  reopen(): void;
  raw(msg: ClientMessage): boolean;
  request(msg: Request): Promise<Answer>;
  noteLastSeq(n: number | null | undefined): void;
}

export class RoomConnection implements Transport {
  private ws: WebSocket | null = null;
  private seq = 0;
  private waiters = new Map<number, Waiter>();
  private closedByUs = false;
  private attempts = 0;
  private retryTimer = 0;
  private pingTimer = 0;
  private everOpened = false;
  private lastHeard = 0;

  constructor(
    private roomId: string,
    private handlers: ConnHandlers,
    private now: () => number = () => Date.now(),
  ) {}

  get url(): string {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/rooms/${encodeURIComponent(this.roomId)}`;
  }

  get isOpen(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  connect(): void {
    this.closedByUs = false;
    this.handlers.onStatus(this.everOpened ? "lost" : "connecting");
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.everOpened = true;
      // patches: each event carries only the view's keys the move may have changed (room.ts applies them)
      const hello: ClientMessage = {
        type: "hello",
        last_version: this.handlers.lastVersion(),
        patches: true,
        device: deviceId(),
      };
      ws.send(JSON.stringify(hello));
      this.handlers.onStatus("open");
      this.lastHeard = this.now();
      window.clearInterval(this.pingTimer);
      this.pingTimer = window.setInterval(() => this.beat(ws), PING_MS);
    };
    ws.onmessage = (ev) => {
      this.lastHeard = this.now();
      let msg: ServerMessage;
      try {
        msg = JSON.parse(String(ev.data)) as ServerMessage;
      } catch {
        return;
      }
      this.dispatch(msg);
    };
    ws.onclose = (ev) => this.lost(ws, ev.code);
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  /** Each PING_MS: ping, or leave a socket that has brought nothing for SILENT_MS. */
  private beat(ws: WebSocket): void {
    if (this.ws !== ws) return;
    if (this.now() - this.lastHeard > SILENT_MS) {
      // A frozen node may never complete a close: forget the socket now and reconnect.
      ws.onopen = ws.onmessage = ws.onclose = null;
      try {
        ws.close(4000);
      } catch {
        /* already closing */
      }
      this.lost(ws, 1006);
      return;
    }
    this.raw({ type: "ping" });
  }

  /** The socket is gone (closed, or left as silent): reject what waited, then retry
   * unless the close says retrying will not help. */
  private lost(ws: WebSocket, code: number): void {
    window.clearInterval(this.pingTimer);
    if (this.ws === ws) this.ws = null;
    // Whatever was waiting for an answer will not get one on this connection.
    for (const [seq, w] of this.waiters) {
      window.clearTimeout(w.timer);
      w.reject({ code: "network", message: "connection lost" });
      this.waiters.delete(seq);
    }
    if (this.closedByUs) {
      this.handlers.onStatus("closed");
      return;
    }
    if (FATAL_CLOSES.includes(code)) {
      // Not authenticated / signed out / no such room / played elsewhere: retrying will
      // not help (or would take the seat back from the other device).
      this.closedByUs = true;
      this.handlers.onStatus("closed");
      this.handlers.onFatal(code);
      return;
    }
    this.handlers.onStatus("lost");
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    window.clearTimeout(this.retryTimer);
    const delay = reconnectDelay(this.attempts); // with jitter: clients do not come back together
    this.attempts++;
    this.retryTimer = window.setTimeout(() => {
      if (!this.closedByUs) this.connect();
    }, delay);
  }

  /** Retry now (the browser came back online). */
  nudge(): void {
    if (this.closedByUs || this.isOpen) return;
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) return;
    window.clearTimeout(this.retryTimer);
    this.attempts = 0;
    this.connect();
  }

  /** Connect again after a fatal close (e.g. "play here" after 4409). */
  reopen(): void {
    if (this.isOpen) return;
    window.clearTimeout(this.retryTimer);
    this.attempts = 0;
    this.connect();
  }

  close(): void {
    this.closedByUs = true;
    window.clearTimeout(this.retryTimer);
    window.clearInterval(this.pingTimer);
    this.ws?.close(1000);
    this.ws = null;
  }

  private dispatch(msg: ServerMessage): void {
    if (
      (msg.type === "ack" || msg.type === "error" || msg.type === "query_result") &&
      typeof msg.seq === "number"
    ) {
      const w = this.waiters.get(msg.seq);
      if (w) {
        this.waiters.delete(msg.seq);
        window.clearTimeout(w.timer);
        if (msg.type === "error") {
          const hint =
            typeof msg.retry_after_ms === "number" ? { retryAfterMs: msg.retry_after_ms } : {};
          w.reject({ code: msg.code, message: msg.message ?? "", ...hint });
        } else w.resolve(msg);
        return; // the requester handles its answer
      }
      if (msg.type !== "error") return;
    }
    this.handlers.onMessage(msg);
  }

  raw(msg: ClientMessage): boolean {
    if (!this.isOpen) return false;
    this.ws!.send(JSON.stringify(msg));
    return true;
  }

  /** The server's highest seq for this player (snapshot.last_seq): never reuse one. */
  noteLastSeq(n: number | null | undefined): void {
    if (typeof n === "number" && n > this.seq) this.seq = n;
  }

  /** Seqs increase per player across connections and devices: start from the clock. */
  private nextSeq(): number {
    this.seq = Math.max(this.seq + 1, Date.now());
    return this.seq;
  }

  /** Send a message that gets an answer (ack, error or query_result) for its seq; a
   * refusal with a retry hint is tried again (new seq) after max(hint, back-off), up to
   * RETRY_TRIES times. */
  async request(msg: Request): Promise<Answer> {
    for (let tries = 0; ; tries++) {
      try {
        return await this.once(msg);
      } catch (e) {
        const err = e as ServerError;
        if (err.retryAfterMs === undefined || tries >= RETRY_TRIES || this.closedByUs) throw err;
        const delay = Math.max(err.retryAfterMs, reconnectDelay(tries));
        await new Promise((resolve) => window.setTimeout(resolve, delay));
      }
    }
  }

  private once(msg: Request): Promise<Answer> {
    const seq = this.nextSeq();
    return new Promise((resolve, reject) => {
      if (!this.raw({ ...msg, seq } as ClientMessage)) {
        reject({ code: "network", message: "not connected" });
        return;
      }
      const timer = window.setTimeout(() => {
        this.waiters.delete(seq);
        reject({ code: "network", message: "no answer" });
      }, REPLY_TIMEOUT_MS);
      this.waiters.set(seq, { resolve, reject, timer });
    });
  }
}
