// The move log: the round's events as this seat received them (the event frames, and a
// snapshot's `recent`), what each one says in words, and where the last move of another
// seat happened on the table (for a brief highlight). Everything here is read from the
// events and the view the server sent (docs/protocol.md): a stock draw of another seat
// carries no tile, so the log says only "drew from the stock"; what a joker stands for is
// the view's `stands_for`. No DOM: render.ts draws the entries, with each seat's name as
// an isolated text element in the `{name}` slot.

import { has, t } from "../i18n";
import { tileShort, type Faces } from "../tiles";
import type { SeatView } from "../types";

/** One event of the log: the room version it brought and the event as this seat got it. */
export interface LogEntry {
  version: number;
  event: Record<string, unknown>;
}

export interface MoveLog {
  entries: LogEntry[];
  /** The version of the newest entry (an older or repeated one is not added again). */
  last: number | null;
}

/** Entries kept (a round rarely has more moves a person scrolls back to). */
export const LOG_MAX = 120;

/** Events that say nothing to a player at the table. */
const SILENT = new Set(["room_changed"]);

export function emptyLog(): MoveLog {
  return { entries: [], last: null };
}

/** The log with the event at `version` (ignored when the log already holds it). */
export function logEvent(log: MoveLog, version: number, event: Record<string, unknown>): MoveLog {
  if (log.last !== null && version <= log.last) return log;
  if (typeof event.do !== "string" || SILENT.has(event.do)) return { ...log, last: version };
  const entries = [...log.entries, { version, event }];
  return { entries: entries.length > LOG_MAX ? entries.slice(-LOG_MAX) : entries, last: version };
}

/** A snapshot's `recent` events added to the log: the ones newer than what it holds. */
export function logRecent(log: MoveLog, recent: readonly LogEntry[]): MoveLog {
  let out = log;
  for (const r of recent) out = logEvent(out, r.version, r.event);
  return out;
}

// ------------------------------------------------------------------ where it happened

/** Where the last move of another seat (or of a bot on this seat's behalf) happened. */
export interface Flash {
  version: number;
  /** Local clock, ms, when it arrived: the highlight fades from then on. */
  at: number;
  seat: number;
  /** Table melds (indices in the view's table) laid or extended by the move. */
  melds: number[];
  /** The row changed: a discard (its newest tile) or a take (the row as a whole). */
  row: "discard" | "take" | null;
  stock: boolean;
}

/** How long a move stays highlighted. */
export const FLASH_MS = 2600;

const num = (x: unknown): number | null => (typeof x === "number" ? x : null);
const list = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

/** Where `event` happened, seen in `view` (the view after it); null for this seat's own
 * moves (the player saw them happen) and for events that are not moves. */
export function flashOf(
  event: Record<string, unknown>,
  view: SeatView | null,
  version: number,
  at: number,
): Flash | null {
  const seat = num(event.seat);
  if (seat === null || !view) return null;
  if (seat === view.seat && event.by === "player") return null;
  const base: Flash = { version, at, seat, melds: [], row: null, stock: false };
  const laid = list(event.melds).length;
  const newMelds = () =>
    Array.from({ length: laid }, (_, i) => view.table.length - laid + i).filter((i) => i >= 0);
  switch (event.do) {
    case "draw":
      return { ...base, stock: true };
    case "discard":
      return { ...base, row: "discard" };
    case "lay":
      return { ...base, melds: newMelds() };
    case "take_row":
      return { ...base, row: "take", melds: newMelds() };
    case "take_discard": {
      const off = list(event.layoffs)
        .map((x) => num((x as { meld?: unknown }).meld))
        .filter((x): x is number => x !== null);
      return { ...base, row: "take", melds: [...new Set([...newMelds(), ...off])] };
    }
    case "layoff":
    case "buy_joker": {
      const m = num(event.meld);
      return { ...base, melds: m === null ? [] : [m] };
    }
    default:
      return null;
  }
}

// ------------------------------------------------------------------ words

/** One entry in words: an i18n key and its parameters; `{name}` is `seat`'s name (the
 * renderer puts it in as an isolated element). `bot`: a bot played the move for a
 * player (a timeout, an away or unresponsive player). */
export interface Described {
  key: string;
  params: Record<string, string | number>;
  seat: number | null;
  bot: boolean;
}

/** What the describer needs besides the event: how tiles look, who this is, which
 * seats are people's. */
export interface DescribeContext {
  faces: Faces;
  humanSeats: ReadonlySet<number>;
  /** The reader's own seat: its own moves are told in the second person ("you
   * discarded"); none in a replay, which tells every seat alike. */
  me?: number | null;
}

function tileText(faces: Faces, x: unknown): string {
  return typeof x === "number" ? tileShort(faces, x) : "?";
}

/** Melds as text: each meld's tiles in brackets, `[7♥ 8♥ 9♥] [Q♠ Q♦ Q♣]`. */
export function meldsText(faces: Faces, melds: unknown): string {
  return list(melds)
    .map(
      (m) =>
        `[${list((m as { tiles?: unknown }).tiles)
          .map((x) => tileText(faces, x))
          .join(" ")}]`,
    )
    .join(" ");
}

/** The entry in words, or null for an event the log does not show. */
export function describe(event: Record<string, unknown>, ctx: DescribeContext): Described | null {
  const seat = num(event.seat);
  const f = ctx.faces;
  const bot =
    seat !== null && ctx.humanSeats.has(seat) && (event.by === "bot" || event.by === "timeout");
  // The reader's own move (not a bot's on their seat): "you discarded", not "Ana (you)
  // discarded"; the key's `.you` form.
  const out = (
    key: string,
    params: Record<string, string | number> = {},
    who: number | null = seat,
    byBot: boolean = bot,
  ): Described => {
    const yours = who !== null && who === ctx.me && !byBot && has(`${key}.you`);
    return { key: yours ? `${key}.you` : key, params, seat: who, bot: byBot };
  };
  const opening = event.opened === true ? t("move.opening") : "";
  switch (event.do) {
    case "draw":
      if (event.stock_empty) return out("move.draw.empty");
      return typeof event.tile === "number"
        ? out("move.draw.own", { tile: tileText(f, event.tile) })
        : out("move.draw");
    case "discard":
      return out(event.over ? "move.discard.out" : "move.discard", {
        tile: tileText(f, event.tile),
      });
    case "lay":
      return out(event.opened ? "move.lay.open" : "move.lay", {
        melds: meldsText(f, event.melds),
        atu: event.atu ? t("move.atu") : "",
      });
    case "take_row": {
      const tiles = list(event.tiles);
      const params = {
        n: tiles.length,
        tile: tileText(f, tiles[0]),
        melds: meldsText(f, event.melds),
        open: opening,
      };
      return out(tiles.length > 1 ? "move.takeRow.deep" : "move.takeRow.top", params);
    }
    case "take_discard": {
      const parts: string[] = [];
      if (list(event.melds).length)
        parts.push(t("move.laid", { melds: meldsText(f, event.melds) }));
      for (const lo of list(event.layoffs)) {
        const l = lo as { tile?: unknown; meld?: unknown };
        parts.push(t("move.laidOff", { tile: tileText(f, l.tile), n: (num(l.meld) ?? 0) + 1 }));
      }
      return out("move.takeDiscard", {
        tile: tileText(f, event.tile),
        what: parts.join(", "),
        open: opening,
      });
    }
    case "layoff":
      return out("move.layoff", { tile: tileText(f, event.tile), n: (num(event.meld) ?? 0) + 1 });
    case "buy_joker":
      return out("move.buyJoker", { tile: tileText(f, event.tile), n: (num(event.meld) ?? 0) + 1 });
    case "joker_button":
      return out("move.jokerButton");
    case "timeout":
      return out(
        (num(event.timeouts) ?? 1) > 1 ? "move.timeout.again" : "move.timeout",
        { n: num(event.timeouts) ?? 1 },
        seat,
        false,
      );
    case "presence":
      if (event.away) return out("move.away", {}, seat, false);
      if (event.unresponsive) return out("move.unresponsive", {}, seat, false);
      return out("move.back", {}, seat, false);
    case "round_start":
      return out("move.roundStart", { n: num(event.round) ?? 0 }, num(event.first), false);
    case "round_over":
      return out("move.roundOver", { n: num(event.round) ?? 0 }, null, false);
    case "match_over":
      return out(
        event.reason === "abandoned" ? "move.matchAbandoned" : "move.matchOver",
        {},
        null,
        false,
      );
    default:
      return null;
  }
}

/** The entry as plain text, `name` giving each seat's name (for tests and labels). */
export function describeText(d: Described, name: (seat: number) => string): string {
  const params = { ...d.params, name: d.seat === null ? "" : name(d.seat) };
  const text = t(d.key, params);
  return d.bot ? `${text} ${t("move.byBot")}` : text;
}
