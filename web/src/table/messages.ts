// The room's data (state.ts RoomData) from the socket's messages, as a pure function: a
// snapshot replaces it, an event changes what it carries (the whole view, or a patch of
// the view's top-level keys, docs/protocol.md), anything else leaves it alone. Each event
// also goes into the move log (a snapshot brings the round's `recent` events), and a move
// of another seat says where it happened (movelog.ts).

import type { ServerMessage } from "../protocol.gen";
import type { Scores, SeatView } from "../types";
import { flashOf, logEvent, logRecent } from "./movelog";
import type { RoomData } from "./state";

export interface Applied {
  room: RoomData;
  /** The room's version after the message, when it has one. */
  version: number | null;
  /** The table should be drawn again (not for a replayed event but the last). */
  refresh: boolean;
  scoresChanged: boolean;
}

/** `now` is the local clock (unix seconds); deadlines are moved onto it. */
export function applyMessage(room: RoomData, m: ServerMessage, now: number): Applied {
  if (m.type !== "snapshot" && m.type !== "event")
    return { room, version: null, refresh: false, scoresChanged: false };
  const offset = m.server_time - now; // server clock − local clock
  const local = (d: number | null) => (typeof d === "number" ? d - offset : null);
  const next: RoomData = { ...room };
  const scores = (s: Scores | null | undefined) => {
    if (!s) return;
    next.scores = s;
    if (s.over) {
      next.matchOver = true;
      next.winners = s.winners;
    }
  };
  if (m.type === "snapshot") {
    const variant = (m.room.settings as { variant?: unknown }).variant;
    next.status = m.room.status;
    if (typeof variant === "string") next.variantId = variant;
    next.round = m.room.round || null;
    next.seats = m.seats;
    next.view = (m.view as unknown as SeatView | null) ?? null;
    next.rack = m.rack ?? null;
    next.nextRoundIn = null;
    next.deadline = local(m.deadline);
    scores(m.scores);
    next.log = logRecent(room.log, m.recent ?? []);
    return { room: next, version: m.version, refresh: true, scoresChanged: true };
  }
  const ev = m.event;
  if ((ev.do === "round_start" || ev.do === "round_over") && typeof ev.round === "number")
    next.round = ev.round;
  if (ev.do === "round_start") next.nextRoundIn = null;
  if (ev.do === "round_over")
    next.nextRoundIn = typeof ev.next_round_in === "number" ? ev.next_round_in : null;
  if (ev.do === "match_over") {
    next.matchOver = true;
    next.status = "finished";
    if (Array.isArray(ev.winners)) next.winners = ev.winners as number[];
  }
  // The whole view, or a patch: the keys the event may have changed since the previous
  // version (hello asked for patches). A new object, so the table can compare old and new.
  if (m.view) next.view = m.view as unknown as SeatView;
  else if (m.patch && next.view) next.view = { ...next.view, ...(m.patch as Partial<SeatView>) };
  if (m.seats) next.seats = m.seats;
  if (m.view || m.patch || m.seats) next.deadline = local(m.deadline);
  scores(m.scores);
  next.rack = null; // a saved layout comes with a snapshot only
  next.log = logEvent(room.log, m.version, ev);
  if (!m.replay) next.flash = flashOf(ev, next.view, m.version, now * 1000) ?? room.flash;
  return {
    room: next,
    version: m.version,
    refresh: !(m.replay && !m.view),
    scoresChanged: !!m.scores,
  };
}
