// Which short sounds a room message calls for: pure, so the rules of
// "when" are unit-tested without a browser. The sounds themselves are sounds.ts's.

import type { ServerMessage } from "../protocol.gen";

export type Cue = "turn" | "draw" | "discard" | "tick" | "won";

const TAKES = new Set(["draw", "take_row", "take_discard"]);

interface Seen {
  /** Whose turn it is, this connection's seat and whether the round is over. */
  turn: number | null;
  seat: number | null;
  over?: boolean;
}

/** The cues of one message, given what the room showed before and after it. */
export function cuesOf(before: Seen, after: Seen, m: ServerMessage): Cue[] {
  if (m.type !== "event" || m.replay) return [];
  const e = m.event as { do?: string; result?: { out?: number | null } };
  const cues: Cue[] = [];
  if (e.do && TAKES.has(e.do)) cues.push("draw");
  else if (e.do === "discard") cues.push("discard");
  if (e.do === "round_over" && after.seat !== null && e.result?.out === after.seat)
    cues.push("won");
  const seat = after.seat;
  if (
    seat !== null &&
    after.turn === seat &&
    !after.over &&
    (before.turn !== seat || e.do === "round_start")
  )
    cues.push("turn");
  return cues;
}

/** The countdown's tick: once a second in the last 10 s of this seat's own turn. */
export function tickDue(secondsLeft: number | null, lastTicked: number | null): number | null {
  if (secondsLeft === null || secondsLeft > 10 || secondsLeft <= 0) return null;
  return secondsLeft === lastTicked ? null : secondsLeft;
}
