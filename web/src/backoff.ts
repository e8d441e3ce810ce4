// How long the room connection waits before it tries again (src/conn.ts): an exponential
// back-off, capped, with jitter. Every client of a server that restarts loses its socket in
// the same instant; without jitter they would all come back in the same instants too.

/** The first retry's delay before jitter, ms; it doubles with each failed attempt. */
export const RECONNECT_BASE_MS = 300;

/** The longest delay before jitter, ms. */
export const RECONNECT_MAX_MS = 5000;

/**
 * The delay before reconnect attempt `attempt` (0 for the first), ms: random in
 * [d/2, d] where d = min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2^attempt).
 * `random` is Math.random's kind of function (tests pass their own).
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const whole = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.min(attempt, 30));
  return whole / 2 + (whole / 2) * random();
}
