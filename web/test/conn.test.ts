// The room connection's requests (src/conn.ts): a refusal that carries the server's retry
// hint (busy, database_unavailable: nothing was played) is sent again with a new seq, no
// sooner than the hint and backing off; any other refusal reaches the caller at once.
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { RECONNECT_BASE_MS } from "../src/backoff";

interface Sent {
  seq: number;
  type: string;
}

/** A socket that opens at once and answers each request with the next of `answers`. */
function install(answers: Array<(seq: number) => Record<string, unknown>>) {
  const sent: Sent[] = [];
  const delays: number[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  const saved = { window: g.window, location: g.location, WebSocket: g.WebSocket };
  class Socket {
    static OPEN = 1;
    static CONNECTING = 0;
    readyState = 1;
    onopen: (() => void) | null = null;
    onmessage: ((ev: { data: string }) => void) | null = null;
    onerror: (() => void) | null = null;
    onclose: ((ev: { code: number }) => void) | null = null;
    constructor() {
      queueMicrotask(() => this.onopen?.());
    }
    close(): void {}
    send(text: string): void {
      const msg = JSON.parse(text) as Sent;
      if (msg.type === "hello" || msg.type === "ping") return;
      sent.push(msg);
      const answer = answers.shift();
      if (answer) queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(answer(msg.seq)) }));
    }
  }
  g.window = {
    setTimeout: (f: () => void, ms: number) => {
      if (ms < 10000) {
        delays.push(ms);
        queueMicrotask(f); // the wait itself is not what is tested: its length is
      }
      return delays.length;
    },
    clearTimeout: () => {},
    setInterval: () => 0,
    clearInterval: () => {},
  };
  g.location = { protocol: "http:", host: "example.test" };
  g.WebSocket = Socket;
  return { sent, delays, restore: () => Object.assign(g, saved) };
}

const busy = (seq: number) => ({
  type: "error",
  seq,
  code: "busy",
  message: "catching up",
  retry_after_ms: 2000,
});
const ack = (seq: number) => ({ type: "ack", seq, version: 7 });
const handlers = {
  onMessage: () => {},
  onStatus: () => {},
  onFatal: () => {},
  lastVersion: () => null,
};

test("a refusal with a retry hint is sent again after the hint, with a new seq", async () => {
  const env = install([busy, busy, ack]);
  try {
    const { RoomConnection } = await import("../src/conn");
    const conn = new RoomConnection("room", handlers);
    conn.connect();
    await new Promise((resolve) => setImmediate(resolve));
    const answer = await conn.request({ type: "action", base_version: 5, action: { do: "draw" } });
    assert.equal(answer.type, "ack");
    assert.equal(env.sent.length, 3);
    assert.equal(new Set(env.sent.map((m) => m.seq)).size, 3, "each try has a seq of its own");
    assert.deepEqual(env.delays.length, 2);
    for (const d of env.delays) assert.ok(d >= 2000, `sent again after ${d} ms, before the hint`);
  } finally {
    env.restore();
  }
});

test("the tries back off and end with the refusal", async () => {
  const hinted = (seq: number) => ({ ...busy(seq), retry_after_ms: 1 });
  const env = install(Array.from({ length: 10 }, () => hinted));
  try {
    const { RoomConnection, RETRY_TRIES } = await import("../src/conn");
    const conn = new RoomConnection("room", handlers);
    conn.connect();
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(
      conn.request({ type: "action", base_version: 5, action: { do: "draw" } }),
      {
        code: "busy",
      },
    );
    assert.equal(env.sent.length, RETRY_TRIES + 1);
    assert.ok(env.delays[0] >= RECONNECT_BASE_MS / 2, `${env.delays[0]}`);
    const last = env.delays[env.delays.length - 1];
    assert.ok(
      last >= (RECONNECT_BASE_MS * 2 ** (RETRY_TRIES - 1)) / 2,
      `no back-off: ${env.delays}`,
    );
  } finally {
    env.restore();
  }
});

test("a refusal without a hint reaches the caller at once", async () => {
  const stale = (seq: number) => ({ type: "error", seq, code: "stale_version", message: "old" });
  const env = install([stale, ack]);
  try {
    const { RoomConnection } = await import("../src/conn");
    const conn = new RoomConnection("room", handlers);
    conn.connect();
    await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(
      conn.request({ type: "action", base_version: 5, action: { do: "draw" } }),
      {
        code: "stale_version",
      },
    );
    assert.equal(env.sent.length, 1);
  } finally {
    env.restore();
  }
});

test("a socket that brings nothing for SILENT_MS is left for a new one; a live one is kept", async () => {
  // A node frozen (SIGSTOP) or cut off answers nothing, and its TCP connection stays up.
  const g = globalThis as unknown as Record<string, unknown>;
  const saved = { window: g.window, location: g.location, WebSocket: g.WebSocket };
  const sockets: Array<{ sent: string[]; closed: number | null; answer: boolean }> = [];
  class Socket {
    static OPEN = 1;
    static CONNECTING = 0;
    readyState = 1;
    onopen: (() => void) | null = null;
    onmessage: ((ev: { data: string }) => void) | null = null;
    onerror: (() => void) | null = null;
    onclose: ((ev: { code: number }) => void) | null = null;
    record = { sent: [] as string[], closed: null as number | null, answer: true };
    constructor() {
      sockets.push(this.record);
      queueMicrotask(() => this.onopen?.());
    }
    close(code: number): void {
      this.record.closed = code;
    }
    send(text: string): void {
      this.record.sent.push(text);
      if (this.record.answer && JSON.parse(text).type === "ping") {
        queueMicrotask(() => this.onmessage?.({ data: JSON.stringify({ type: "pong" }) }));
      }
    }
  }
  let tick: (() => void) | null = null;
  g.window = {
    setTimeout: (f: () => void) => (queueMicrotask(f), 1),
    clearTimeout: () => {},
    setInterval: (f: () => void) => {
      tick = f;
      return 1;
    },
    clearInterval: () => {},
  };
  g.location = { protocol: "http:", host: "example.test" };
  g.WebSocket = Socket;
  try {
    const { RoomConnection, PING_MS, SILENT_MS } = await import("../src/conn");
    let clock = 0;
    const statuses: string[] = [];
    const conn = new RoomConnection(
      "room",
      { ...handlers, onStatus: (s) => statuses.push(s) },
      () => clock,
    );
    conn.connect();
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    // The server answers every ping: the socket is kept however long it lasts.
    for (let t = 0; t < 5 * SILENT_MS; t += PING_MS) {
      clock += PING_MS;
      tick!();
      await settle();
    }
    assert.equal(sockets.length, 1);
    assert.equal(sockets[0].closed, null);
    // Then it falls silent: within SILENT_MS and a ping it is left, and a new one opened.
    sockets[0].answer = false;
    for (let t = 0; t <= SILENT_MS + PING_MS && sockets.length === 1; t += PING_MS) {
      clock += PING_MS;
      tick!();
      await settle();
    }
    assert.equal(sockets.length, 2, "no new socket after the old one fell silent");
    assert.equal(sockets[0].closed, 4000);
    assert.ok(statuses.includes("lost"));
    assert.equal(statuses[statuses.length - 1], "open");
  } finally {
    Object.assign(g, saved);
  }
});
