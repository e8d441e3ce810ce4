// The table's state and its reducer: `reduce(state, event)` takes what the room's socket
// brought or what the player did (a tap, a drop, a key, a server's answer) and returns the
// new state with the effects to run (send a move, ask the server, show a message). It is
// pure: no DOM, no socket, no timer, no text (effects name i18n keys); rendering is
// render.ts, the DOM's events input.ts, running the effects index.ts. Every
// variant-dependent step reads a catalogue fact (VariantFacts), never a variant id.

import { faceOf, rankKey, suitKey } from "../faces";
import type { GameAction, LayAction, SeatState, VariantFacts } from "../protocol.gen";
import { Rack, reflow, sameLayout, type Formation } from "../rack";
import type { FormationAnswer, OpeningLock, Scores, SeatView } from "../types";
import { emptyLog, type Flash, type MoveLog } from "./movelog";

/** The rack's width as the server keeps it (the `rack` message) and a wide screen shows it. */
export const COLS = 14;
/** The narrowest tile on the rack, in CSS px, and the gap between two. */
export const MIN_TILE = 34;
const GAP = 3;

/** How many columns the rack shows on a screen `width` CSS px wide: all 14 when tiles of
 * MIN_TILE fit, else as many as fit (at least 7), the rows growing instead, so the whole
 * rack is in view without scrolling sideways. */
export function colsFor(width: number): number {
  const fit = Math.floor((width - 16 + GAP) / (MIN_TILE + GAP));
  return Math.max(7, Math.min(COLS, fit));
}

/** The rows a fresh rack gets: the catalogue's (for 14 columns), one more on a narrower rack. */
export function rackRows(variant: VariantFacts, cols: number): number {
  return variant.rack_rows + (cols < COLS ? 1 : 0);
}

/** What the room knows from its socket (snapshot and events). */
export interface RoomData {
  view: SeatView | null;
  seats: SeatState[];
  deadline: number | null;
  scores: Scores | null;
  round: number | null;
  status: string;
  variantId: string | null;
  /** The server's saved rack layout, with a snapshot only. */
  rack: (number | null)[] | null;
  matchOver: boolean;
  winners: number[] | null;
  /** Seconds of pause after the round that just ended (`round_over`), else null. */
  nextRoundIn: number | null;
  /** The round's events in the order they came (movelog.ts). */
  log: MoveLog;
  /** Where the last move of another seat happened, for a brief highlight. */
  flash: Flash | null;
  /** The joker credits in the player's account (GET /api/account), once known. */
  accountCredits?: number | null;
  /** A finished match played again: "new" (this player makes the room), "join" (another
   * of its players made it: join it), "solo" (a new match against the bots: a practice);
   * absent where it is not offered (a tournament's table, a spectator). The room page
   * decides it. */
  again?: "new" | "join" | "solo" | null;
}

export type Connection = "open" | "lost" | "connecting" | "closed";

export type Selection =
  | { kind: "rack"; slot: number }
  | { kind: "row"; index: number }
  | { kind: "stock" }
  | { kind: "atu" }
  | null;

/** Tiles taken from the row (or the last discard) but not sent yet: they must go into a formation. */
export interface Pending {
  kind: "row" | "discard";
  index: number;
  taken: number;
  tiles: number[];
}

export interface TableState {
  room: RoomData;
  variant: VariantFacts | null;
  rack: Rack | null;
  rackRound: string | null;
  selection: Selection;
  pending: Pending | null;
  atuOnRack: boolean;
  /** A row tile's preview; `block`: why the server does not let this seat take it now. */
  preview: { index: number; tiles: number[]; block?: ServerError | null } | null;
  /** The server's answer per formation (tile ids joined by ","). */
  answers: ReadonlyMap<string, FormationAnswer>;
  lock: OpeningLock | null;
  /** What `lock` answered (lockKey): a lock for other formations is not yet the answer. */
  lockKey: string | null;
  busy: boolean;
  dropHint: number | null;
  summary: { view: SeatView; seats: SeatState[] } | null;
  summaryOpen: boolean;
  seenOverKey: string | null;
  connection: Connection;
  /** Where the keyboard focus should go; `seq` grows with each request. */
  focus: { key: string; seq: number } | null;
  /** The whole move log is open (a panel over the table). */
  logOpen: boolean;
  /** The rack's columns on this screen (colsFor); the saved layout is always COLS wide. */
  cols: number;
  /** "Take my seat back" was pressed: its move says "I am here"; a refusal is not shown. */
  takingBack?: boolean;
}

export interface ServerError {
  code: string;
  message: string;
}

/** After a row preview arrives: show it, keep it (a drag is on), or take it onto a slot. */
export type PreviewThen =
  | { kind: "show" }
  | { kind: "drag" }
  | { kind: "take"; slot: number | null };

export type TableEvent =
  | { type: "room"; room: RoomData; variant: VariantFacts | null }
  | { type: "connection"; status: Connection }
  /** The screen's width gives the rack another number of columns. */
  | { type: "cols"; cols: number }
  | { type: "tap"; act: string }
  | { type: "drop"; src: NonNullable<Selection>; target: string }
  | { type: "key"; key: string; slot: number | null }
  /** `key`: lockKey of the state the question was asked in (absent: the current one). */
  | {
      type: "formations";
      forms: number[][];
      answers: FormationAnswer[];
      lock: OpeningLock | null;
      key?: string;
    }
  | {
      type: "rowPreview";
      index: number;
      tiles: number[];
      then: PreviewThen;
      error: ServerError | null;
      block?: ServerError | null;
    }
  | { type: "sent"; action: GameAction; clearsPending: boolean; error: ServerError | null }
  /** The engine's `arrange` answer: the best melds it finds in the hand, and the rest. */
  | { type: "arranged"; melds: number[][]; left: number[] };

export type Effect =
  | { do: "send"; action: GameAction; clearsPending: boolean }
  /** The rack moved: save its layout and ask about its formations (the runner debounces). */
  | { do: "rackChanged" }
  /** The table changed what the lock depends on (turn, phase, openings): ask again. */
  | { do: "ask" }
  | { do: "rowPreview"; index: number; then: PreviewThen }
  | { do: "toast"; key: string }
  | { do: "error"; error: ServerError }
  | { do: "leave" }
  /** The summary was read: the next deal need not wait for this seat (`next_round`). */
  | { do: "summaryRead" }
  | { do: "openScores" }
  /** Ask the engine for the best melds in the hand (the "arrange" button). */
  | { do: "arrange" }
  /** The finished match played again (the room page makes or joins the new room). */
  | { do: "again" };

export interface Step {
  state: TableState;
  effects: Effect[];
}

export function emptyRoom(): RoomData {
  return {
    view: null,
    seats: [],
    deadline: null,
    scores: null,
    round: null,
    status: "waiting",
    variantId: null,
    rack: null,
    matchOver: false,
    winners: null,
    nextRoundIn: null,
    log: emptyLog(),
    flash: null,
  };
}

export function initialState(): TableState {
  return {
    room: emptyRoom(),
    variant: null,
    rack: null,
    rackRound: null,
    selection: null,
    pending: null,
    atuOnRack: false,
    preview: null,
    answers: new Map(),
    lock: null,
    lockKey: null,
    busy: false,
    dropHint: null,
    summary: null,
    summaryOpen: false,
    seenOverKey: null,
    connection: "connecting",
    focus: null,
    logOpen: false,
    cols: COLS,
  };
}

// ------------------------------------------------------------------ derived facts

export function myTurn(s: TableState): boolean {
  const v = s.room.view;
  return !!v && !v.over && v.seat !== null && v.turn === v.seat;
}

/** The variant takes by breaking the row (A.9); otherwise by taking the last discard (B.4). */
export function takesRow(variant: VariantFacts | null): boolean {
  return !!variant && variant.take_actions.includes("take_row");
}

export function formations(s: TableState): Formation[] {
  return s.rack && s.variant ? s.rack.formations(s.variant.min_meld) : [];
}

export function answerOf(s: TableState, f: Formation): FormationAnswer | undefined {
  return s.answers.get(f.tiles.join(","));
}

export function validFormations(s: TableState): { f: Formation; a: FormationAnswer }[] {
  const out: { f: Formation; a: FormationAnswer }[] = [];
  for (const f of formations(s)) {
    const a = answerOf(s, f);
    if (a && a.valid) out.push({ f, a });
  }
  return out;
}

/** The layout to save: the rack with only the hand's tiles (pending ones are not yet in
 * it), in rows of COLS whatever this screen shows. */
export function rackLayout(s: TableState): (number | null)[] | null {
  if (!s.rack || !s.room.view) return null;
  const hand = new Set(s.room.view.hand);
  return reflow(
    s.rack.slots.map((x) => (x !== null && hand.has(x) ? x : null)),
    s.rack.cols,
    COLS,
  );
}

/** What the opening lock depends on: the rack's formations, the tile a take would bring
 * and the view's turn, phase and openings. A lock answered for another key is stale. */
export function lockKey(s: TableState): string {
  const v = s.room.view;
  const forms = formations(s)
    .map((f) => f.tiles.join(","))
    .join("|");
  const ctx = v
    ? [
        v.turn,
        v.phase,
        v.opened_with.join(","),
        v.last_points_opening,
        v.last_doubles_opening,
      ].join(":")
    : "";
  return `${forms}#${s.pending?.taken ?? ""}#${ctx}`;
}

/** The lock answered for the rack as it is now, else null (the question is on its way). */
export function freshLock(s: TableState): OpeningLock | null {
  return s.lock && s.lockKey === lockKey(s) ? s.lock : null;
}

export type LayBlock =
  | "none"
  | "notTurn"
  | "firstTurn"
  | "noFormation"
  | "locked"
  | "needTaken"
  | "checking";

/** Whether the lay button (or the take's button) can be pressed, what it lays and why not.
 * Every way of opening stays locked until the server's answer for these very formations
 * says the lay would pass (`freshLock`): `value` and `doubles` are the running totals. */
export function layState(s: TableState): {
  enabled: boolean;
  value: number;
  doubles: number;
  count: number;
  pending: Pending | null;
  opened: boolean;
  block: LayBlock;
} {
  const v = s.room.view;
  const valid = validFormations(s);
  const value = valid.reduce((sum, x) => sum + (x.a.kind === "double" ? 0 : x.a.value), 0);
  const doubles = valid.filter((x) => x.a.kind === "double").length;
  const mine = v && v.seat !== null ? v.seats[v.seat] : null;
  const base = { value, doubles, count: valid.length, pending: s.pending, opened: !!mine?.opened };
  if (!v) return { ...base, enabled: false, block: "none" };
  const lock = freshLock(s);
  if (s.pending) {
    if (!lock) return { ...base, enabled: false, block: "checking" };
    if (lock.locked)
      return {
        ...base,
        enabled: false,
        block: lock.code === "taken_tile_unused" ? "needTaken" : "locked",
      };
    return { ...base, enabled: !s.busy, block: "none" };
  }
  if (v.over) return { ...base, enabled: false, block: "none" };
  if (!myTurn(s) || v.phase !== "build")
    return { ...base, enabled: false, block: myTurn(s) ? "none" : "notTurn" };
  if (s.variant?.first_turn_restricted && mine?.first_turn)
    return { ...base, enabled: false, block: "firstTurn" };
  if (!valid.length) return { ...base, enabled: false, block: "noFormation" };
  if (!lock) return { ...base, enabled: false, block: "checking" };
  if (lock.locked) return { ...base, enabled: false, block: "locked" };
  return { ...base, enabled: !s.busy, block: "none" };
}

/** By suit: runs of consecutive ranks apart, else whole suits apart, else packed. */
const suitOf = (id: number) => (faceOf(id).joker ? 9 : faceOf(id).suit);
const rankOf = (id: number) => (faceOf(id).joker ? 99 : faceOf(id).rank);
const SUIT_SPLITS = [
  (a: number, b: number) =>
    suitOf(a) !== suitOf(b) || (suitOf(b) !== 9 && rankOf(b) - rankOf(a) !== 1),
  (a: number, b: number) => suitOf(a) !== suitOf(b),
  () => false,
];
/** By rank: each rank apart, else packed. */
const RANK_SPLITS = [(a: number, b: number) => rankOf(a) !== rankOf(b), () => false];

/** The server's saved layout for this hand, padded to whole rows; null when there is none
 * (the server then sends the bare hand, without a single gap: we arrange it ourselves).
 * The player's own layout is kept: a tile no longer in the hand leaves its slot empty, and
 * a tile of the hand it lacks is placed later (`reconcile`: a slot away from formations). */
export function usableLayout(
  layout: (number | null)[] | null,
  hand: number[],
): (number | null)[] | null {
  if (!layout || !layout.length || !layout.includes(null)) return null;
  const handSet = new Set(hand);
  const seen = new Set<number>();
  const out = layout.map((x) => {
    if (x === null || !handSet.has(x) || seen.has(x)) return null;
    seen.add(x);
    return x;
  });
  if (!seen.size) return null;
  while (out.length % COLS !== 0) out.push(null);
  return out;
}

// ------------------------------------------------------------------ the reducer

/** One step: a mutable copy of the state (objects inside are replaced, never changed) and
 * the effects gathered on the way. */
class Draft {
  s: TableState;
  effects: Effect[] = [];

  constructor(state: TableState) {
    this.s = { ...state };
  }

  get view(): SeatView | null {
    return this.s.room.view;
  }

  /** The rack, copied before its first change in this step. */
  private rackCopied = false;
  editRack(): Rack | null {
    if (!this.s.rack) return null;
    if (!this.rackCopied) {
      this.s.rack = this.s.rack.clone();
      this.rackCopied = true;
    }
    return this.s.rack;
  }

  setFocus(key: string): void {
    this.s.focus = { key, seq: (this.s.focus?.seq ?? 0) + 1 };
  }

  select(sel: Selection): void {
    this.s.selection = sel;
    if (sel?.kind === "rack") this.setFocus(`slot:${sel.slot}`);
  }

  rackChanged(): void {
    if (!this.effects.some((e) => e.do === "rackChanged")) this.effects.push({ do: "rackChanged" });
  }

  send(action: GameAction, clearsPending = false): void {
    if (this.s.busy) return;
    this.s.busy = true;
    this.s.selection = null;
    this.effects.push({ do: "send", action, clearsPending });
  }

  private rackKeep(v: SeatView): number[] {
    const keep = [...v.hand];
    if (this.s.pending) keep.push(...this.s.pending.tiles.filter((x) => !keep.includes(x)));
    if (this.s.atuOnRack && v.atu !== null && !keep.includes(v.atu)) keep.push(v.atu);
    return keep;
  }

  /** Make the rack hold the hand (and what is pending), arranging a new round's hand. */
  syncRack(prev: SeatView | null, v: SeatView, serverLayout: (number | null)[] | null): void {
    const variant = this.s.variant;
    if (!variant) return;
    const minRows = rackRows(variant, this.s.cols);
    const key = `${this.s.room.round ?? "?"}:${v.variant_id}`;
    const newRound = this.s.rack === null || this.s.rackRound !== key || (!!prev?.over && !v.over);
    const before = this.s.rack ? [...this.s.rack.slots] : null;
    if (newRound) {
      this.s.rackRound = key;
      this.s.answers = new Map();
      this.s.lock = null;
      this.s.lockKey = null;
      const rack = new Rack(this.s.cols, minRows);
      const saved = usableLayout(serverLayout, v.hand);
      if (saved) {
        rack.slots = reflow(saved, COLS, this.s.cols);
        while (rack.rows < minRows) rack.addRow();
      } else {
        rack.arrange(v.hand, suitKey, SUIT_SPLITS, minRows);
      }
      this.s.rack = rack;
      this.rackCopied = true;
    }
    const rack = this.editRack()!;
    const keep = this.rackKeep(v);
    const present = new Set(rack.tiles());
    const arriving = keep.filter((x) => !present.has(x));
    if (arriving.length && this.s.dropHint !== null) {
      if (rack.slots[this.s.dropHint] === null) rack.slots[this.s.dropHint] = arriving[0];
      this.s.dropHint = null;
    }
    rack.reconcile(keep);
    if (!before || !sameLayout(before, rack.slots) || newRound) this.rackChanged();
  }

  room(room: RoomData, variant: VariantFacts | null): void {
    const prev = this.view;
    const keyBefore = this.s.rack ? lockKey(this.s) : null;
    this.s.room = room;
    this.s.variant = variant;
    const v = room.view;
    if (v && v.over && v.result) {
      const key = `${room.round}:${v.result.scores.join(",")}`;
      if (this.s.seenOverKey !== key) {
        this.s.seenOverKey = key;
        this.s.summary = { view: v, seats: room.seats };
        this.s.summaryOpen = true;
        this.s.pending = null;
        this.s.preview = null;
        this.s.selection = null;
        this.s.atuOnRack = false;
      }
    }
    // The summary never hides a running turn: the next round's deal closes it.
    if (v && !v.over && this.s.summaryOpen) this.s.summaryOpen = false;
    if (v && v.seat !== null) this.syncRack(prev, v, room.rack);
    const mine = myTurn(this.s);
    // A pending take that can no longer be made (turn passed, row changed) is dropped.
    if (this.s.pending && v && (!mine || v.phase !== "take")) {
      this.s.pending = null;
      this.syncRack(v, v, null);
    }
    if (this.s.atuOnRack && v && (v.atu === null || v.atu_taken_by !== null || !mine)) {
      this.s.atuOnRack = false;
      this.syncRack(v, v, null);
    }
    if (this.s.preview && v && (!mine || v.phase !== "take")) this.s.preview = null;
    // The lock depends on the turn, the phase and the openings too: ask again when they moved.
    if (
      v &&
      v.seat !== null &&
      !v.over &&
      keyBefore !== null &&
      keyBefore !== lockKey(this.s) &&
      !this.effects.some((e) => e.do === "rackChanged")
    )
      this.effects.push({ do: "ask" });
  }

  tap(act: string): void {
    const v = this.view;
    const [kind, a1, a2] = act.split(":");
    switch (kind) {
      case "leave":
        this.effects.push({ do: "leave" });
        return;
      case "scores":
        this.effects.push({ do: "openScores" });
        return;
      case "again":
        if (this.s.room.matchOver && this.s.room.again) this.effects.push({ do: "again" });
        return;
      case "summary-close":
        if (this.s.summaryOpen && !this.s.room.matchOver) this.effects.push({ do: "summaryRead" });
        this.s.summaryOpen = false;
        return;
      case "log-open":
        this.s.logOpen = true;
        this.setFocus("log-close");
        return;
      case "log-close":
        this.s.logOpen = false;
        this.setFocus("log-open");
        return;
      case "sort-suit":
        return this.sort("suit");
      case "sort-rank":
        return this.sort("rank");
      case "arrange":
        if (!this.s.rack || !this.view || this.s.pending || this.s.atuOnRack)
          this.effects.push({ do: "toast", key: "table.arrange.notNow" });
        else this.effects.push({ do: "arrange" });
        return;
      case "lay":
        return this.lay();
      case "pending-cancel":
        return this.cancelPending();
      case "preview-take":
        return this.confirmPreview(null);
      case "preview-cancel":
        this.s.preview = null;
        return;
      case "joker-button":
        return this.send({ do: "joker_button" });
      case "take-back":
        // Any move the player sends takes the seat back from the bot, even a refused one:
        // a draw (made if it is the seat's turn to take, refused otherwise).
        this.s.takingBack = true;
        return this.send({ do: "draw" });
    }
    if (!v) return;
    const sel = this.s.selection;
    if (kind === "stock") {
      if (myTurn(this.s) && v.phase === "take") this.send({ do: "draw" });
      else this.select(null);
      return;
    }
    if (kind === "atu") {
      if (this.s.atuOnRack) return;
      this.select(sel?.kind === "atu" ? null : { kind: "atu" });
      return;
    }
    if (kind === "slot") {
      const slot = Number(a1);
      const id = this.s.rack?.slots[slot] ?? null;
      if (sel?.kind === "rack") {
        if (sel.slot === slot) return this.select(null);
        if (id !== null) return this.select({ kind: "rack", slot }); // another tile: select it instead
        return this.drop(sel, `slot:${slot}`);
      }
      if (sel) return this.drop(sel, `slot:${slot}`);
      if (id !== null) this.select({ kind: "rack", slot });
      return;
    }
    if (kind === "row") {
      // A tile then the row: the row is where discards go.
      if (sel?.kind === "rack") return this.drop(sel, "discard");
      return this.askPreview(Number(a1));
    }
    if (kind === "discard") {
      if (sel?.kind === "rack") this.drop(sel, "discard");
      return;
    }
    if (kind === "meld" || kind === "joker") {
      if (sel?.kind === "rack")
        this.drop(sel, kind === "joker" ? `joker:${a1}:${a2}` : `meld:${a1}`);
    }
  }

  /** One move, from a tap sequence or a drop: `src` onto `target` (a data-drop value). */
  drop(src: NonNullable<Selection>, target: string): void {
    const v = this.view;
    if (!v || !this.s.rack) return;
    const [kind, a1] = target.split(":");
    this.s.selection = null;
    if (src.kind === "rack") {
      const id = this.s.rack.slots[src.slot];
      if (id === null || id === undefined) return;
      if (kind === "slot") {
        const rack = this.editRack()!;
        rack.move(src.slot, Number(a1));
        this.setFocus(`slot:${rack.slotOf(id)}`);
        this.rackChanged();
        return;
      }
      const p = this.s.pending;
      if (p && id === p.taken && (kind === "meld" || kind === "joker") && p.kind === "discard") {
        // B.4: the last discard used at once in a lay-off.
        const melds = validFormations(this.s)
          .filter((x) => !x.f.tiles.includes(id))
          .map(meldSpec);
        return this.send(
          { do: "take_discard", melds, layoffs: [{ tile: id, meld: Number(a1) }] },
          true,
        );
      }
      if (p?.tiles.includes(id) || (this.s.atuOnRack && id === v.atu)) {
        this.effects.push({ do: "toast", key: p ? "table.takeRow.need" : "table.atu.pending" });
        return;
      }
      if (kind === "discard") return this.send({ do: "discard", tile: id });
      if (kind === "meld") return this.send({ do: "layoff", tile: id, meld: Number(a1) });
      if (kind === "joker") {
        // A joker the tile cannot buy back (the view's `stands_for` lists the faces that
        // can): the tile goes onto the joker's meld as a lay-off instead.
        const meld = v.table[Number(a1)];
        const can = meld?.stands_for?.[meld.tiles.indexOf(Number(target.split(":")[2]))];
        const face = faceOf(id).joker ? null : id % 52;
        if (can && (face === null || !can.includes(face)))
          return this.send({ do: "layoff", tile: id, meld: Number(a1) });
        return this.send({ do: "buy_joker", tile: id, meld: Number(a1) });
      }
      return;
    }
    if (src.kind === "stock") {
      if (kind === "slot") this.s.dropHint = Number(a1);
      return this.send({ do: "draw" });
    }
    if (src.kind === "atu") {
      if (kind !== "slot" || v.atu === null || v.atu_taken_by !== null) return;
      this.s.atuOnRack = true;
      this.editRack()!.put(v.atu, Number(a1));
      this.rackChanged();
      return;
    }
    if (src.kind === "row" && kind === "slot") this.confirmPreview(Number(a1), src.index);
  }

  askPreview(index: number): void {
    if (!this.view || this.s.pending) return;
    if (this.s.preview?.index === index) {
      this.s.preview = null;
      return;
    }
    this.effects.push({ do: "rowPreview", index, then: { kind: "show" } });
  }

  previewArrived(
    index: number,
    tiles: number[],
    then: PreviewThen,
    error: ServerError | null,
    block: ServerError | null,
  ): void {
    const v = this.view;
    if (!v) return;
    if (error) {
      if (then.kind !== "drag") this.effects.push({ do: "error", error });
      return;
    }
    if (then.kind === "drag" && this.s.preview?.index === index) return;
    this.s.preview = {
      index,
      tiles: tiles.length ? tiles : v.row.slice(index - v.row_offset),
      block,
    };
    if (then.kind === "drag") return;
    this.s.selection = null;
    if (then.kind === "show") {
      // A tile the server does not let this seat take (a deep take before the opening):
      // the preview shows what would come along and why not, with no "take" offered.
      this.setFocus(block ? "preview-cancel" : "preview-take");
      return;
    }
    this.confirmPreview(then.slot);
  }

  /** The previewed tiles come onto the rack as pending (not yet in the hand): the move is
   * sent only when the taken tile sits in a real formation. */
  confirmPreview(slot: number | null, index?: number): void {
    const v = this.view;
    if (!v || !this.s.rack || this.s.pending) return;
    if (index !== undefined && this.s.preview?.index !== index) {
      this.effects.push({ do: "rowPreview", index, then: { kind: "take", slot } });
      return;
    }
    const p = this.s.preview;
    if (!p) return;
    if (p.block) {
      this.effects.push({ do: "error", error: p.block });
      return;
    }
    const taken = v.row[p.index - v.row_offset];
    if (taken === undefined) return;
    this.s.pending = {
      kind: takesRow(this.s.variant) ? "row" : "discard",
      index: p.index,
      taken,
      tiles: p.tiles,
    };
    this.s.preview = null;
    const rack = this.editRack()!;
    if (slot !== null) rack.put(taken, slot);
    for (const id of p.tiles) if (rack.slotOf(id) < 0) rack.slots[rack.freeSlot()] = id;
    this.setFocus(`slot:${rack.slotOf(taken)}`);
    this.rackChanged();
  }

  cancelPending(): void {
    const v = this.view;
    this.s.pending = null;
    this.s.atuOnRack = false;
    this.s.preview = null;
    if (v) this.syncRack(v, v, null);
  }

  lay(): void {
    const v = this.view;
    if (!v) return;
    const valid = validFormations(this.s);
    const atu = this.s.atuOnRack ? v.atu : null;
    if (this.s.pending) {
      const p = this.s.pending;
      const melds = valid.filter((x) => !(atu !== null && x.f.tiles.includes(atu))).map(meldSpec);
      if (p.kind === "row") this.send({ do: "take_row", index: p.index, melds }, true);
      else this.send({ do: "take_discard", melds, layoffs: [] }, true);
      return;
    }
    if (!valid.length) return;
    const action: LayAction = { do: "lay", melds: valid.map(meldSpec) };
    if (atu !== null && valid.some((x) => x.f.tiles.includes(atu))) action.atu = true;
    this.send(action);
  }

  sent(action: GameAction, clearsPending: boolean, error: ServerError | null): void {
    this.s.busy = false;
    const quiet = this.s.takingBack;
    this.s.takingBack = false;
    if (error && quiet) {
      this.s.dropHint = null;
    } else if (error) {
      this.s.dropHint = null;
      this.effects.push({ do: "error", error });
    } else {
      if (clearsPending) this.s.pending = null;
      if (action.do === "lay" && action.atu) this.s.atuOnRack = false;
    }
    const v = this.view;
    if (v) this.syncRack(v, v, null);
  }

  /** The rack redrawn in `cols` columns, every group kept together (rack.ts `reflow`). */
  setCols(cols: number): void {
    if (cols === this.s.cols) return;
    const old = this.s.rack;
    this.s.cols = cols;
    if (!old || !this.s.variant) return;
    const rack = new Rack(cols, 1);
    rack.slots = reflow(reflow(old.slots, old.cols, COLS), COLS, cols);
    while (rack.rows < rackRows(this.s.variant, cols)) rack.addRow();
    this.s.rack = rack;
    this.rackCopied = true;
    this.s.selection = null;
    this.s.dropHint = null;
    this.rackChanged();
  }

  /** The engine's melds laid out on the rack, each whole, one empty slot between groups;
   * the tiles left over in pairs at most, by suit and rank, so that they never look like a
   * formation. An answer for another hand (a move came meanwhile) changes nothing. */
  arranged(melds: number[][], left: number[]): void {
    const rack = this.s.rack;
    const v = this.view;
    if (!rack || !v || !this.s.variant || this.s.pending || this.s.atuOnRack) return;
    const have = [...rack.tiles()].sort((a, b) => a - b).join(",");
    const got = [...melds.flat(), ...left].sort((a, b) => a - b).join(",");
    if (have !== got) return;
    const mins = this.s.variant.meld_min ?? {};
    const shortest = Math.min(
      mins.run ?? this.s.variant.min_meld,
      mins.set ?? this.s.variant.min_meld,
    );
    const chunk = Math.max(1, Math.min(shortest, this.s.variant.min_meld) - 1);
    const rest = [...left].sort((a, b) => suitKey(a) - suitKey(b));
    const groups = [...melds];
    for (let i = 0; i < rest.length; i += chunk) groups.push(rest.slice(i, i + chunk));
    this.editRack()!.layGroups(groups, rackRows(this.s.variant, rack.cols));
    this.s.selection = null;
    this.rackChanged();
  }

  sort(by: "suit" | "rank"): void {
    const rack = this.editRack();
    if (!this.view || !rack || !this.s.variant) return;
    rack.arrange(
      rack.tiles(),
      by === "suit" ? suitKey : rankKey,
      by === "suit" ? SUIT_SPLITS : RANK_SPLITS,
      rackRows(this.s.variant, rack.cols),
    );
    this.s.selection = null;
    this.rackChanged();
  }

  key(key: string, slot: number | null): void {
    if (key === "Escape") {
      if (this.s.logOpen) this.s.logOpen = false;
      else if (this.s.summaryOpen) this.tap("summary-close");
      else {
        this.s.selection = null;
        this.s.preview = null;
      }
      return;
    }
    if (slot === null || !this.s.rack) return;
    const next = nextSlot(key, slot, this.s.rack.cols);
    if (next === null || next < 0 || next >= this.s.rack.slots.length) return;
    this.setFocus(`slot:${next}`);
  }

  formationsArrived(
    forms: number[][],
    answers: FormationAnswer[],
    lock: OpeningLock | null,
    key: string | undefined,
  ): void {
    const map = new Map(this.s.answers);
    forms.forEach((tiles, i) => {
      if (answers[i]) map.set(tiles.join(","), answers[i]);
    });
    this.s.answers = map;
    this.s.lock = lock;
    this.s.lockKey = lock ? (key ?? lockKey(this.s)) : null;
  }
}

/** The rack's keyboard moves: arrows, Home and End within a row of `cols`. */
export function nextSlot(key: string, slot: number, cols: number = COLS): number | null {
  if (key === "ArrowLeft") return slot - 1;
  if (key === "ArrowRight") return slot + 1;
  if (key === "ArrowUp") return slot - cols;
  if (key === "ArrowDown") return slot + cols;
  if (key === "Home") return Math.floor(slot / cols) * cols;
  if (key === "End") return Math.floor(slot / cols) * cols + cols - 1;
  return null;
}

function meldSpec(x: { f: Formation; a: FormationAnswer }): LayAction["melds"][number] {
  const kind = x.a.kind;
  return kind === "set" || kind === "run" || kind === "double"
    ? { kind, tiles: x.f.tiles }
    : { tiles: x.f.tiles };
}

export function reduce(state: TableState, event: TableEvent): Step {
  const d = new Draft(state);
  switch (event.type) {
    case "room":
      d.room(event.room, event.variant);
      break;
    case "connection":
      d.s.connection = event.status;
      break;
    case "cols":
      d.setCols(event.cols);
      break;
    case "tap":
      d.tap(event.act);
      break;
    case "drop":
      d.drop(event.src, event.target);
      break;
    case "key":
      d.key(event.key, event.slot);
      break;
    case "formations":
      d.formationsArrived(event.forms, event.answers, event.lock, event.key);
      break;
    case "rowPreview":
      d.previewArrived(event.index, event.tiles, event.then, event.error, event.block ?? null);
      break;
    case "sent":
      d.sent(event.action, event.clearsPending, event.error);
      break;
    case "arranged":
      d.arranged(event.melds, event.left);
      break;
  }
  return { state: d.s, effects: d.effects };
}
