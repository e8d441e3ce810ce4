// The reconnect back-off (src/backoff.ts): exponential, capped, and random within a range,
// so the clients of a restarted server do not all come back in the same instant
// (issue 23, item 11).
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { RECONNECT_BASE_MS, RECONNECT_MAX_MS, reconnectDelay } from "../src/backoff";

test("the delay doubles with each attempt up to the cap, within [half, whole] of it", () => {
  for (let attempt = 0; attempt < 12; attempt++) {
    const whole = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** attempt);
    assert.equal(
      reconnectDelay(attempt, () => 0),
      whole / 2,
      `attempt ${attempt}, lowest`,
    );
    assert.ok(reconnectDelay(attempt, () => 0.999999) <= whole, `attempt ${attempt}, highest`);
    assert.ok(
      reconnectDelay(attempt, () => 0.999999) > whole * 0.99,
      `attempt ${attempt}, highest`,
    );
  }
  assert.equal(
    reconnectDelay(0, () => 0.5),
    (RECONNECT_BASE_MS * 3) / 4,
  );
});

test("clients that lost the same server at the same instant come back spread out", () => {
  // a thousand clients, each at its first and at its capped attempt
  for (const attempt of [0, 20]) {
    const whole = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** attempt);
    const delays = Array.from({ length: 1000 }, () => reconnectDelay(attempt));
    for (const d of delays) assert.ok(d >= whole / 2 && d <= whole, `${d} out of range`);
    // no instant takes more than a few percent of them (1 ms buckets)
    const counts = new Map<number, number>();
    for (const d of delays) counts.set(Math.floor(d), (counts.get(Math.floor(d)) ?? 0) + 1);
    assert.ok(Math.max(...counts.values()) < 50, "the delays are not spread");
    const spread = Math.max(...delays) - Math.min(...delays);
    assert.ok(spread > whole / 4, `spread ${spread} ms of a ${whole / 2} ms range`);
  }
});

test("a huge attempt count stays at the cap (no overflow to Infinity or NaN)", () => {
  const d = reconnectDelay(5000, () => 0.5);
  assert.ok(Number.isFinite(d) && d <= RECONNECT_MAX_MS && d >= RECONNECT_MAX_MS / 2);
});

test("the room connections of one lost server schedule their retries at different times", async () => {
  // No browser here: a socket that fails at once, and timers that only record their delay.
  const delays: number[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  const saved = { window: g.window, location: g.location, WebSocket: g.WebSocket };
  class FailingSocket {
    static OPEN = 1;
    static CONNECTING = 0;
    readyState = 0;
    onopen: (() => void) | null = null;
    onmessage: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onclose: ((ev: { code: number }) => void) | null = null;
    constructor() {
      queueMicrotask(() => this.onclose?.({ code: 1006 }));
    }
    close(): void {}
    send(): void {}
  }
  g.window = {
    setTimeout: (_f: () => void, ms: number) => (delays.push(ms), delays.length),
    clearTimeout: () => {},
    setInterval: () => 0,
    clearInterval: () => {},
  };
  g.location = { protocol: "http:", host: "example.test" };
  g.WebSocket = FailingSocket;
  try {
    const { RoomConnection } = await import("../src/conn");
    const handlers = {
      onMessage: () => {},
      onStatus: () => {},
      onFatal: () => {},
      lastVersion: () => null,
    };
    for (let i = 0; i < 100; i++) new RoomConnection("room", handlers).connect();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(delays.length, 100);
    for (const d of delays) assert.ok(d >= RECONNECT_BASE_MS / 2 && d <= RECONNECT_BASE_MS, `${d}`);
    assert.ok(new Set(delays).size > 50, `only ${new Set(delays).size} distinct delays of 100`);
  } finally {
    Object.assign(g, saved);
  }
});
