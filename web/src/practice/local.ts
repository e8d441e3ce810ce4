// The offline practice's transport: the same interface as the room's WebSocket
// (conn.ts Transport: hello, requests answered by seq, raw messages), spoken to the
// practice room in a Web Worker (worker.ts) instead of the server. The table and the
// room page are the same code online and offline; only this differs.

import type { Answer, ConnHandlers, Request, ServerError, Transport } from "../conn";
import type { ClientMessage, ServerMessage } from "../protocol.gen";
import type { PracticeSettings } from "./store";
import { cachedFirst } from "../sw";
import type { FromWorker, ToWorker } from "./worker";

export interface LocalOptions {
  /** New match settings; null resumes the match kept on this device. */
  settings: PracticeSettings | null;
  name: string | null;
  seed: string;
  botDelay: number;
  onReady?: (settings: PracticeSettings, loadMs: number) => void;
  onFailed?: (code: string, message: string) => void;
}

let shared: Promise<Worker> | null = null;

/** A performance mark `remi:<name>` (DevTools' timeline, web/scripts/bench-offline.mjs),
 * at `epochMs` (performance.timeOrigin-based, as the worker sends them) or now. */
export function practiceMark(name: string, epochMs?: number): void {
  try {
    performance.mark(
      `remi:${name}`,
      epochMs === undefined ? undefined : { startTime: epochMs - performance.timeOrigin },
    );
  } catch {
    /* a mark before the page's time origin: not needed */
  }
}

/** The practice worker (one per page; Pyodide is loaded once). On a first visit it is
 * made once the service worker has cached Pyodide's files (sw.ts cachedFirst): it then
 * reads them from that cache instead of downloading them a second time. */
export function practiceWorker(): Promise<Worker> {
  shared ??= cachedFirst().then(
    () =>
      new Worker(new URL("./worker.ts", import.meta.url), {
        type: "module",
        name: "remi-practice",
      }),
  );
  return shared;
}

let warm = false;

/** Start Pyodide in the practice worker ahead of the table (once per page): when the
 * page opens on the practice, when the lobby has a kept match to resume, when the player
 * reaches into the practice box or presses Start. A player who never practises never
 * loads it (a phone's memory and data). */
export function warmPractice(): void {
  if (warm) return;
  warm = true;
  practiceMark("practice:warm");
  void practiceWorker().then((w) => w.postMessage({ kind: "boot" } satisfies ToWorker));
}

interface Waiter {
  resolve: (v: Answer) => void;
  reject: (e: ServerError) => void;
}

export class LocalConnection implements Transport {
  private seq = 0;
  private open = false;
  private closed = false;
  private drawn = false;
  private waiters = new Map<number, Waiter>();
  private worker: Worker | null = null;
  private onWorker = (ev: MessageEvent<FromWorker>) => this.fromWorker(ev.data);

  constructor(
    private handlers: ConnHandlers,
    private opts: LocalOptions,
  ) {}

  get isOpen(): boolean {
    return this.open && !this.closed;
  }

  connect(): void {
    this.handlers.onStatus("connecting");
    practiceMark("practice:open");
    void practiceWorker().then((w) => {
      if (this.closed) return;
      this.worker = w;
      w.addEventListener("message", this.onWorker);
      const m: ToWorker = {
        kind: "open",
        settings: this.opts.settings,
        name: this.opts.name,
        seed: this.opts.seed,
        botDelay: this.opts.botDelay,
      };
      w.postMessage(m);
    });
  }

  private fromWorker(m: FromWorker): void {
    if (this.closed) return;
    if (m.kind === "ready") {
      for (const [name, at] of m.marks) practiceMark(`worker:${name}`, at);
      practiceMark("practice:ready");
      this.open = true;
      this.opts.settings = null; // from now on (a reopen), the kept match
      this.opts.onReady?.(m.settings, m.loadMs);
      this.raw({ type: "hello", last_version: null, patches: false });
      this.handlers.onStatus("open");
    } else if (m.kind === "failed") {
      this.opts.onFailed?.(m.code, m.message);
    } else if (m.kind === "frame") {
      const first = !this.drawn && (m.frame as ServerMessage).type === "snapshot";
      this.dispatch(m.frame as ServerMessage);
      if (first) {
        this.drawn = true;
        practiceMark("practice:table"); // the table drew the match's first snapshot
      }
    }
  }

  private dispatch(msg: ServerMessage): void {
    if (
      (msg.type === "ack" || msg.type === "error" || msg.type === "query_result") &&
      typeof msg.seq === "number"
    ) {
      const w = this.waiters.get(msg.seq);
      if (w) {
        this.waiters.delete(msg.seq);
        if (msg.type === "error") w.reject({ code: msg.code, message: msg.message ?? "" });
        else w.resolve(msg);
        return;
      }
      if (msg.type !== "error") return;
    }
    this.handlers.onMessage(msg);
  }

  nudge(): void {
    /* nothing to reconnect to */
  }

  reopen(): void {
    /* never closed by the other side */
  }

  close(): void {
    this.closed = true;
    this.worker?.postMessage({ kind: "close" } satisfies ToWorker);
    this.worker?.removeEventListener("message", this.onWorker);
    for (const w of this.waiters.values()) w.reject({ code: "network", message: "closed" });
    this.waiters.clear();
    this.handlers.onStatus("closed");
  }

  raw(msg: ClientMessage): boolean {
    if (!this.worker || this.closed) return false;
    const m: ToWorker = { kind: "client", msg };
    this.worker.postMessage(m);
    return true;
  }

  noteLastSeq(n: number | null | undefined): void {
    if (typeof n === "number" && n > this.seq) this.seq = n;
  }

  request(msg: Request): Promise<Answer> {
    this.seq = Math.max(this.seq + 1, Date.now());
    const seq = this.seq;
    return new Promise((resolve, reject) => {
      if (!this.isOpen || !this.raw({ ...msg, seq } as ClientMessage)) {
        reject({ code: "network", message: "not ready" });
        return;
      }
      this.waiters.set(seq, { resolve, reject });
    });
  }
}

/** The variant catalogue from the engine in the worker (server/rules/catalogue.py): the
 * same body as GET /api/variants, for a page that cannot reach the server. */
export async function localCatalogue(): Promise<unknown> {
  const w = await practiceWorker();
  return new Promise((resolve, reject) => {
    const on = (ev: MessageEvent<FromWorker>) => {
      if (ev.data.kind === "catalogue") {
        w.removeEventListener("message", on);
        resolve(ev.data.body);
      } else if (ev.data.kind === "failed") {
        w.removeEventListener("message", on);
        reject(new Error(ev.data.message));
      }
    };
    w.addEventListener("message", on);
    w.postMessage({ kind: "catalogue" } satisfies ToWorker);
  });
}
