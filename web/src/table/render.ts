// The table drawn from its state (state.ts): seats, stock, atu, discard row, melds, the
// controls, the rack with its formations and the round's summary. Drawing reads the
// state and the catalogue's facts only; every interactive element carries `data-act`
// (a tap), `data-drag` (a drag source) or `data-drop` (a drop target), which input.ts
// turns into the reducer's events.

import { variantName } from "../catalogue";
import { clear, h, nameEl, namesEl } from "../dom";
import { faceOf } from "../faces";
import { getLang, reason, t, tParts } from "../i18n";
import type { VariantFacts } from "../protocol.gen";
import { meldLabel, sortSymbols, tileEl, tileShort, type Faces } from "../tiles";
import type { OpeningLock, SeatView } from "../types";
import { glide, places, type Places } from "./motion";
import {
  describe,
  describeText,
  FLASH_MS,
  type Described,
  type Flash,
  type LogEntry,
} from "./movelog";
import {
  answerOf,
  formations,
  freshLock,
  layState,
  myTurn,
  takesRow,
  type TableState,
} from "./state";

export interface RenderHost {
  langButton(): HTMLElement;
  headerButtons?(): HTMLElement[];
}

/** The seat's name as this player reads it. */
export function seatName(s: TableState, seat: number): string {
  const meta = s.room.seats.find((x) => x.seat === seat);
  if (seat === (s.room.view?.seat ?? null))
    return meta?.name ? `${meta.name} (${t("table.you")})` : t("table.you");
  if (meta?.name) return meta.name;
  if (meta?.is_bot) return `${t("table.bot")} ${seat + 1}`;
  return t("room.seat", { n: seat + 1 });
}

/** The seat's name as an element: the player's name isolated (a `<bdi>`, dom.ts `nameEl`),
 * with "(you)" after it outside the isolation on this player's own seat; `cls` and
 * `titled` as for `nameEl` (on the whole). */
export function seatNameEl(s: TableState, seat: number, cls = "", titled = false): HTMLElement {
  const meta = s.room.seats.find((x) => x.seat === seat);
  if (seat !== (s.room.view?.seat ?? null) || !meta?.name)
    return nameEl(seatName(s, seat), cls, titled);
  const full = seatName(s, seat);
  return h(
    "span",
    { class: cls || null, title: titled ? full : null },
    nameEl(meta.name),
    ` (${t("table.you")})`,
  );
}

function ownerInitial(s: TableState, seat: number): string {
  const meta = s.room.seats.find((x) => x.seat === seat);
  const n = meta?.name?.trim();
  return n ? n[0].toUpperCase() : String(seat + 1);
}

export function timeLeftText(s: TableState): string {
  const d = s.room.deadline;
  if (!d) return "";
  return t("table.left", { s: Math.max(0, Math.ceil(d - Date.now() / 1000)) });
}

function lockText(variant: VariantFacts, lock: OpeningLock): string {
  if (
    variant.opening.doubles !== null &&
    (lock.code === "below_threshold" || lock.code === "run_required") &&
    lock.doubles_needed
  ) {
    return t("table.lay.missing.doubles", {
      value: lock.value,
      threshold: lock.threshold ?? 0,
      doubles: lock.doubles,
      needed: lock.doubles_needed,
    });
  }
  if (lock.code === "below_threshold" && lock.threshold !== null) {
    const parts = [
      t("table.lay.missing.points", {
        missing: Math.max(0, lock.threshold - lock.value),
        value: lock.value,
        threshold: lock.threshold,
      }),
    ];
    if (lock.run_required && !lock.has_run) parts.push(t("table.lay.missing.run"));
    return parts.join(" · ");
  }
  if (lock.code === "run_required") return t("table.lay.missing.run");
  return reason(lock.code, lock.message);
}

/** What a formation must be, from the catalogue: "3 or more tiles", or with doubles
 * (Remi 101) "runs or sets of 3 or more, doubles of 2". */
function noFormationText(variant: VariantFacts): string {
  const min = variant.meld_min ?? {};
  if (min.double !== undefined)
    return t("table.lay.none.kinds", { run: min.run ?? min.set ?? 3, double: min.double });
  return t("table.lay.none", { n: variant.min_meld });
}

/** The lay button's label (or the take's: breaking the row, the last discard) with the
 * running total and, when doubles count, the doubles; when it cannot be pressed, why. */
function layText(
  s: TableState,
  variant: VariantFacts,
): { enabled: boolean; label: string; reason: string } {
  const lay = layState(s);
  const withDoubles = (label: string) =>
    variant.opening.doubles !== null && lay.doubles > 0
      ? t("table.lay.withDoubles", { label, n: lay.doubles })
      : label;
  const opening = () =>
    lay.value === 0 && lay.doubles > 0
      ? t("table.lay.opening.doubles", { n: lay.doubles })
      : withDoubles(t("table.lay.opening", { value: lay.value }));
  // A question on its way: the last answer's reason stays (no flicker), the button locked.
  const last = s.lock?.locked ? lockText(variant, s.lock) : "";
  const lockReason = () => {
    const lock = freshLock(s);
    if (!lock) return "";
    const parts =
      lock.taken_used === false && lock.code !== "taken_tile_unused"
        ? [t("table.takeRow.need")]
        : [];
    parts.push(lockText(variant, lock));
    return parts.join(" · ");
  };
  const why: Record<typeof lay.block, () => string> = {
    none: () => "",
    needTaken: () => t("table.takeRow.need"),
    notTurn: () => t("table.lay.notturn"),
    firstTurn: () => firstTurnText(s.room.view),
    noFormation: () => noFormationText(variant),
    locked: lockReason,
    checking: () => last || t("table.lay.checking"),
  };
  if (lay.pending) {
    const row = lay.pending.kind === "row";
    let label = row ? t("table.takeRow.send") : t("table.takeDiscard.send");
    if (lay.count) {
      const key = `${row ? "table.takeRow" : "table.takeDiscard"}.send.${lay.opened ? "value" : "open"}`;
      label = withDoubles(t(key, { value: lay.value }));
    }
    const reason =
      lay.block === "checking" && !lay.count ? t("table.takeRow.need") : why[lay.block]();
    return { enabled: lay.enabled, label, reason };
  }
  const label = lay.count
    ? lay.opened
      ? withDoubles(t("table.lay.value", { value: lay.value }))
      : opening()
    : t("table.lay");
  return {
    enabled: lay.enabled,
    label: s.room.view?.over ? t("table.lay") : label,
    reason: why[lay.block](),
  };
}

/** A seat in words: opened or not, and its points laid this round (A.7 credits). */
function openedText(opened: boolean, credits: number, long: boolean): string {
  if (long)
    return opened ? t("table.seat.openedLong", { n: credits }) : t("table.seat.notopenedLong");
  return opened ? t("table.seat.opened", { n: credits }) : t("table.seat.notopened");
}

/** Why the previewed row tile is not offered, in words. */
function blockText(block: { code: string; message: string }): string {
  return block.code === "not_opened"
    ? t("table.takeRow.notOpened")
    : reason(block.code, block.message);
}

/** A bot plays this player's own seat (after turns that timed out, or while away). */
export function botPlaysMe(s: TableState): boolean {
  const v = s.room.view;
  if (!v || v.seat === null || v.over) return false;
  const meta = s.room.seats.find((x) => x.seat === v.seat);
  return !!meta && !meta.is_bot && (meta.unresponsive || meta.away);
}

/** A seat's first turn (A.4) in words: the first player, dealt one tile more, only
 * discards; any other seat draws, then discards. */
function firstTurnText(v: SeatView | null): string {
  return v && v.phase === "build" && v.seat === v.first
    ? t("table.phase.firstDiscard")
    : t("table.phase.first");
}

function statusText(s: TableState, v: SeatView, variant: VariantFacts): (string | HTMLElement)[] {
  if (v.over) return [t("summary.title")];
  if (botPlaysMe(s)) return [t("table.status.botForYou")];
  if (v.seat === null || !myTurn(s))
    return tParts("table.turn.other", { name: seatNameEl(s, v.turn) });
  const mine = v.seats[v.seat];
  let phase =
    v.phase === "take"
      ? takesRow(variant)
        ? t("table.phase.take")
        : t("table.phase.takeDiscard")
      : t("table.phase.build");
  if (variant.first_turn_restricted && mine?.first_turn) phase = firstTurnText(v);
  return [`${t("table.turn.you")}: ${phase}`];
}

/** The hint line's text while a row preview is shown. */
export function previewText(faces: Faces, tiles: number[]): string {
  const along = tiles.slice(1);
  return along.length
    ? t("table.takeRow.preview", { tiles: along.map((x) => tileShort(faces, x)).join(" ") })
    : t("table.takeRow.only");
}

/** Mark `el` as where the last move of another seat happened: `data-flashed` holds the
 * move's version (kept), the `flash` class fades out over FLASH_MS (the animation starts
 * where it was, so a redraw does not start it again). */
function flashEl(el: HTMLElement, flash: Flash): void {
  el.dataset.flashed = String(flash.version);
  const age = Date.now() - flash.at;
  if (age >= FLASH_MS) return;
  el.classList.add("flash");
  el.style.animationDelay = `-${Math.max(0, age)}ms`;
}

/** The seats people play (a bot's move on such a seat says "(bot)"). */
function humanSeats(s: TableState): Set<number> {
  return new Set(s.room.seats.filter((x) => !x.is_bot).map((x) => x.seat));
}

/** The log's entries of the current round (from its `round_start` on). */
export function roundEntries(entries: readonly LogEntry[]): LogEntry[] {
  let from = 0;
  entries.forEach((e, i) => {
    if (e.event.do === "round_start") from = i;
  });
  return entries.slice(from);
}

/** One log entry as an element: the words, each seat's name an isolated text element. */
function entryEl(s: TableState, d: Described, version: number, fresh: boolean): HTMLElement {
  const params: Record<string, string | number | HTMLElement> = { ...d.params };
  if (d.seat !== null) params.name = seatNameEl(s, d.seat);
  return h(
    "li",
    // The whole line as its tooltip: a line cut short on a narrow screen can be read.
    {
      class: `move${fresh ? " fresh" : ""}${d.seat !== null ? ` owner${d.seat}` : ""}`,
      "data-testid": `move-${version}`,
      "data-version": version,
      title: describeText(d, (x) => seatName(s, x)),
    },
    d.seat !== null
      ? h(
          "span",
          { class: `owner-dot owner${d.seat}`, "aria-hidden": "true" },
          ownerInitial(s, d.seat),
        )
      : h("span", { class: "owner-dot none", "aria-hidden": "true" }, "•"),
    h(
      "span",
      { class: "move-text" },
      tParts(d.key, params),
      d.bot ? h("span", { class: "badge bot" }, t("move.byBot")) : null,
    ),
  );
}

/** Draws the table into its root; keeps the focus, the row's and the melds' scroll. */
export class TableView {
  private focusKey: string | null = null;
  private focusSeq = 0;
  /** The round and the seat to play at the last drawing (where a new tile came from). */
  private lastRound: string | null = null;
  private lastTurn: number | null = null;
  /** Watches the melds' area for size changes the game did not cause (see `meldsCue`). */
  private cueWatch: ResizeObserver | null = null;

  constructor(
    private root: HTMLElement,
    private host: RenderHost,
  ) {}

  render(s: TableState): void {
    const root = this.root;
    const active = document.activeElement as HTMLElement | null;
    const explicit = s.focus !== null && s.focus.seq !== this.focusSeq;
    if (explicit) {
      this.focusKey = s.focus!.key;
      this.focusSeq = s.focus!.seq;
    } else if (active && root.contains(active) && active.dataset.key)
      this.focusKey = active.dataset.key;
    const scrollRow = root.querySelector(".row-tiles")?.scrollLeft ?? null;
    const scrollMelds = root.querySelector(".melds")?.scrollTop ?? null;
    const scrollLog = root.querySelector(".log-list")?.scrollTop ?? null;
    const scrollRack = root.querySelector(".rack-box")?.scrollLeft ?? null;
    const before = places(root);
    const stockWas = root.querySelector("[data-testid=stock]")?.getBoundingClientRect() ?? null;
    clear(root);
    const v = s.room.view;
    const variant = s.variant;
    const page = h("main", {
      class: `table${variant ? ` faces-${variant.faces}` : ""}`,
      "data-testid": "table",
    });
    page.append(this.header(s));
    if (!v || !variant) {
      page.append(h("div", { class: "table-wait" }, t("table.waitingDeal")));
      root.append(page);
      this.banner(s);
      return;
    }
    if (v.seat === null || !s.rack) {
      // A spectator: the table without a rack.
      page.append(
        this.seats(s, v),
        this.moves(s, variant),
        this.center(s, v, variant),
        h(
          "section",
          { class: "controls" },
          h("div", { class: "status" }, statusText(s, v, variant)),
        ),
      );
    } else {
      page.append(
        this.seats(s, v),
        this.moves(s, variant),
        this.center(s, v, variant),
        this.controls(s, v, variant),
        this.rack(s, v, variant),
      );
    }
    root.append(page);
    if (s.logOpen) root.append(this.logPanel(s, variant));
    if (s.summaryOpen && s.summary) root.append(this.summary(s, variant.faces));
    this.banner(s);
    const rowEl = root.querySelector(".row-tiles");
    if (rowEl)
      rowEl.scrollLeft =
        scrollRow === null ? rowEl.scrollWidth : Math.max(scrollRow, rowEl.scrollWidth);
    const meldsEl = root.querySelector(".melds");
    if (meldsEl && scrollMelds !== null) meldsEl.scrollTop = scrollMelds;
    this.meldsCue();
    const logEl = root.querySelector(".log-list");
    if (logEl) logEl.scrollTop = scrollLog === null ? logEl.scrollHeight : scrollLog;
    const rackEl = root.querySelector<HTMLElement>(".rack-box");
    if (rackEl && scrollRack !== null) rackEl.scrollLeft = scrollRack;
    this.move(s, before, stockWas);
    if (this.focusKey) {
      const el = root.querySelector<HTMLElement>(`[data-key="${CSS.escape(this.focusKey)}"]`);
      if (el && document.activeElement !== el) el.focus({ preventScroll: true });
      // A slot the keyboard (or a move) went to is brought into the rack's view.
      if (el && explicit && rackEl && rackEl.contains(el)) {
        const r = el.getBoundingClientRect();
        const b = rackEl.getBoundingClientRect();
        if (r.left < b.left) rackEl.scrollLeft -= b.left - r.left + 4;
        else if (r.right > b.right) rackEl.scrollLeft += r.right - b.right + 4;
      }
    }
  }

  /** The tiles travel from where they were (motion.ts): a new tile on the rack from the
   * stock, a new one on the table from the card of the seat that played; a new round's
   * hand is dealt from the stock. */
  private move(s: TableState, before: Places, stockWas: DOMRect | null): void {
    const v = s.room.view;
    const round = v ? `${s.room.round}:${v.variant_id}` : null;
    const deal = round !== null && this.lastRound !== null && round !== this.lastRound;
    const mover = this.lastTurn;
    this.lastRound = round;
    this.lastTurn = v?.turn ?? null;
    if (!v) return;
    const stock =
      this.root.querySelector("[data-testid=stock]")?.getBoundingClientRect() ?? stockWas;
    const seatCard =
      mover === null || mover === v.seat
        ? null
        : (this.root.querySelector(`[data-testid=seat-${mover}]`)?.getBoundingClientRect() ?? null);
    const origin = (el: HTMLElement): DOMRect | null =>
      el.closest("[data-testid=rack]") ? stock : seatCard;
    glide(this.root, deal ? new Map() : before, origin, deal);
  }

  /** The turn timers, every half second without a whole render. */
  tick(s: TableState): void {
    for (const el of this.root.querySelectorAll<HTMLElement>("[data-timer]"))
      el.textContent = timeLeftText(s);
  }

  banner(s: TableState): void {
    let el = document.getElementById("conn-banner");
    if (!el) {
      el = h("div", {
        id: "conn-banner",
        class: "banner",
        role: "status",
        "data-testid": "conn-banner",
      });
      document.body.appendChild(el);
    }
    const lost = s.connection === "lost";
    el.textContent = lost ? t("table.reconnecting") : "";
    el.classList.toggle("show", lost);
    // Below the table's header, which stays usable (back, scores, language).
    const bar = this.root.querySelector(".tbar");
    el.style.setProperty(
      "--tbar-h",
      bar ? `${Math.round(bar.getBoundingClientRect().bottom)}px` : "0px",
    );
  }

  /** While a row tile is dragged: its preview shown in place, without rebuilding the DOM
   * under the finger. */
  showDragPreview(s: TableState): void {
    const p = s.preview;
    if (!p || !s.variant) return;
    for (const el of this.root.querySelectorAll<HTMLElement>(".rtile")) {
      const i = Number(el.dataset.act!.split(":")[1]);
      el.classList.toggle("chosen", i === p.index);
      el.classList.toggle("come-along", i > p.index);
    }
    const hint = this.root.querySelector(".hint");
    if (hint) hint.textContent = previewText(s.variant.faces, p.tiles);
  }

  private header(s: TableState): HTMLElement {
    const variant = s.room.view?.variant_id ?? s.room.variantId;
    return h(
      "header",
      { class: "tbar" },
      h(
        "button",
        {
          type: "button",
          class: "icon back",
          "aria-label": t("table.back"),
          title: t("table.back"),
          "data-act": "leave",
          "data-key": "leave",
          "data-testid": "leave",
        },
        "←",
      ),
      h(
        "div",
        { class: "ttitle" },
        h("h1", { class: "variant" }, variant ? variantName(variant) : ""),
        s.room.round
          ? h("span", { class: "round muted" }, t("table.round", { n: s.room.round }))
          : null,
      ),
      s.room.view && s.room.view.seat === null
        ? h(
            "span",
            {
              class: "badge watching",
              title: t("table.watching.title"),
              "data-testid": "watching",
            },
            t("table.watching"),
          )
        : null,
      h(
        "button",
        {
          type: "button",
          class: "scores-btn",
          "data-act": "scores",
          "data-key": "scores",
          "data-testid": "scores-open",
        },
        t("table.scores"),
      ),
      ...(this.host.headerButtons?.() ?? []),
      this.host.langButton(),
    );
  }

  /** The last moves in words (one line on a phone, three on a wide screen) and the
   * button that opens the whole log. */
  private moves(s: TableState, variant: VariantFacts): HTMLElement {
    const ctx = { faces: variant.faces, humanSeats: humanSeats(s), me: s.room.view?.seat ?? null };
    const entries = roundEntries(s.room.log.entries);
    const described = entries
      .map((e) => ({ e, d: describe(e.event, ctx) }))
      .filter((x) => x.d !== null);
    const last = described.slice(-3);
    const list = h("ol", {
      class: "moves-last",
      "aria-live": "polite",
      "aria-label": t("table.moves"),
      "data-testid": "moves-last",
    });
    if (!last.length) list.append(h("li", { class: "move muted" }, t("table.moves.none")));
    last.forEach(({ e, d }, i) =>
      list.append(
        entryEl(s, d!, e.version, i === last.length - 1 && s.room.flash?.version === e.version),
      ),
    );
    return h(
      "section",
      { class: "moves-box", "data-testid": "movelog" },
      list,
      h(
        "button",
        {
          type: "button",
          class: "small moves-open",
          "data-act": "log-open",
          "data-key": "log-open",
          "data-testid": "moves-open",
          "aria-label": `${t("table.moves")} (${described.length}): ${t("table.moves.open")}`,
          title: t("table.moves.open"),
        },
        `${t("table.moves")} (${described.length})`,
      ),
    );
  }

  /** The whole log of the round, oldest first, over the table. */
  private logPanel(s: TableState, variant: VariantFacts): HTMLElement {
    const ctx = { faces: variant.faces, humanSeats: humanSeats(s), me: s.room.view?.seat ?? null };
    const items = roundEntries(s.room.log.entries)
      .map((e) => ({ e, d: describe(e.event, ctx) }))
      .filter((x) => x.d !== null)
      .map(({ e, d }) => entryEl(s, d!, e.version, false));
    return h(
      "div",
      { class: "modal-back", "data-act": "log-close" },
      h(
        "div",
        {
          class: "modal log-modal",
          role: "dialog",
          "aria-modal": "true",
          "aria-label": t("table.moves.title"),
          "data-testid": "moves-panel",
        },
        h("h2", null, t("table.moves.title")),
        h(
          "ol",
          { class: "log-list" },
          items.length ? items : h("li", { class: "move muted" }, t("table.moves.none")),
        ),
        h(
          "div",
          { class: "row end" },
          h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-act": "log-close",
              "data-key": "log-close",
              "data-testid": "moves-close",
            },
            t("common.close"),
          ),
        ),
      ),
    );
  }

  private seats(s: TableState, v: SeatView): HTMLElement {
    const list = h("ol", { class: "seats", "aria-label": "seats" });
    const n = v.players;
    const me = v.seat ?? 0;
    for (let k = 1; k <= n; k++) {
      const seat = (me + k) % n; // others first, in turn order; me last
      const info = v.seats[seat];
      const meta = s.room.seats.find((x) => x.seat === seat);
      const turn = !v.over && v.turn === seat;
      const badges: HTMLElement[] = [];
      if (meta?.is_bot)
        badges.push(
          h("span", { class: "badge bot", "data-testid": `badge-bot-${seat}` }, t("table.bot")),
        );
      else if (meta?.bot_playing) badges.push(h("span", { class: "badge bot" }, t("table.bot")));
      if (meta?.away)
        badges.push(
          h("span", { class: "badge away", "data-testid": `badge-away-${seat}` }, t("table.away")),
        );
      if (meta?.unresponsive)
        badges.push(h("span", { class: "badge away" }, t("table.unresponsive")));
      list.append(
        h(
          "li",
          {
            class: `seat${turn ? " turn" : ""}${seat === me ? " mine" : ""}`,
            "data-seat": seat,
            "data-testid": `seat-${seat}`,
            "aria-current": turn ? "true" : null,
          },
          h(
            "div",
            { class: "seat-name" },
            h(
              "span",
              { class: `owner-dot owner${seat}`, "aria-hidden": "true" },
              ownerInitial(s, seat),
            ),
            seatNameEl(s, seat, "nm", true),
          ),
          h(
            "div",
            { class: "seat-info" },
            h(
              "span",
              {
                class: "count",
                title: t("table.tiles", { n: info.tiles }),
                "aria-label": t("table.tiles", { n: info.tiles }),
              },
              h("span", { class: "mini-tile", "aria-hidden": "true" }),
              String(info.tiles),
            ),
            h(
              "span",
              {
                class: "total",
                title: t("table.total", { n: meta?.total ?? 0 }),
                "data-testid": `total-${seat}`,
              },
              h("span", { class: "lbl-long" }, "total "),
              h("span", { class: "sigma", "aria-hidden": "true" }, "Σ"),
              String(meta?.total ?? 0),
            ),
          ),
          h(
            "div",
            {
              class: `seat-opened opened ${info.opened ? "yes" : "no"}`,
              title: openedText(info.opened, info.credits, true),
              "data-testid": `opened-${seat}`,
              "data-opened": info.opened ? "1" : "0",
              "data-laid": info.credits,
            },
            openedText(info.opened, info.credits, false),
          ),
          h(
            "div",
            { class: "seat-badges" },
            badges,
            turn ? h("span", { class: "timer", "data-timer": "1" }, timeLeftText(s)) : null,
          ),
        ),
      );
    }
    return list;
  }

  private center(s: TableState, v: SeatView, variant: VariantFacts): HTMLElement {
    const faces = variant.faces;
    const canTake = myTurn(s) && v.phase === "take";
    const stock = h(
      "button",
      {
        type: "button",
        class: `stock${canTake ? " can" : ""}${s.selection?.kind === "stock" ? " selected" : ""}`,
        "data-act": "stock",
        "data-drag": "stock",
        "data-key": "stock",
        "data-testid": "stock",
        "aria-label": `${t("table.stock.draw")}: ${t("table.stock.count", { n: v.stock_count })}`,
      },
      h("span", { class: "stock-count" }, String(v.stock_count)),
    );
    const flash = s.room.flash;
    if (flash?.stock) flashEl(stock, flash);
    const atuBox = h("div", { class: "atu-box" }, h("span", { class: "lbl" }, t("table.atu")));
    if (variant.atu && v.atu !== null) {
      const taken = v.atu_taken_by !== null;
      const el = tileEl(faces, v.atu, { tag: "button" });
      el.classList.add("atu");
      if (taken || s.atuOnRack) el.classList.add("faded");
      if (s.selection?.kind === "atu") el.classList.add("selected");
      el.dataset.act = "atu";
      el.dataset.key = "atu";
      el.dataset.testid = "atu";
      if (!taken && !s.atuOnRack) el.dataset.drag = "atu";
      el.setAttribute("type", "button");
      atuBox.append(el);
      if (taken)
        atuBox.append(
          h(
            "span",
            { class: "muted small" },
            tParts("table.atu.taken", { name: seatNameEl(s, v.atu_taken_by!) }),
          ),
        );
    } else {
      atuBox.hidden = !variant.atu;
    }
    // The discard row, oldest to newest, ending with the discard box.
    const rowTiles = h("div", {
      class: "row-tiles",
      "data-drop": "discard",
      "aria-label": t("table.row"),
    });
    if (v.row_offset > 0)
      rowTiles.append(
        h("span", { class: "row-hidden muted" }, t("table.row.hidden", { n: v.row_offset })),
      );
    const shown = s.preview?.index ?? s.pending?.index ?? null;
    v.row.forEach((id, k) => {
      const index = v.row_offset + k;
      const by = v.row_by?.[k] ?? null;
      const el = tileEl(faces, id, {
        tag: "button",
        owner: by,
        ownerInitial: by === null ? undefined : ownerInitial(s, by),
      });
      el.setAttribute("type", "button");
      if (by !== null) {
        el.dataset.by = String(by);
        const label = `${el.getAttribute("aria-label")}, ${t("table.row.by", { name: seatName(s, by) })}`;
        el.setAttribute("aria-label", label);
        el.title = label;
      }
      if (flash?.row === "discard" && k === v.row.length - 1) flashEl(el, flash);
      el.classList.add("rtile");
      el.dataset.act = `row:${index}`;
      el.dataset.drag = `row:${index}`;
      el.dataset.key = `row:${index}`;
      el.dataset.testid = `row-${index}`;
      if (shown !== null && index >= shown) {
        el.classList.add(index === shown ? "chosen" : "come-along");
        if (s.pending) el.classList.add("in-hand");
      }
      if (canTake && index === v.row_length - 1) el.classList.add("can");
      rowTiles.append(el);
    });
    if (!v.row.length)
      rowTiles.append(h("span", { class: "muted row-empty" }, t("table.row.empty")));
    if (flash?.row === "take") flashEl(rowTiles, flash);
    const discardBox = h(
      "button",
      {
        type: "button",
        class: `discard-box${myTurn(s) && v.phase === "build" ? " can" : ""}`,
        "data-drop": "discard",
        "data-act": "discard",
        "data-key": "discard",
        "data-testid": "discard",
      },
      t("table.discard"),
    );
    const rowBox = h(
      "section",
      { class: "row-box", "aria-label": t("table.row") },
      h("div", { class: "lbl" }, t("table.row")),
      h("div", { class: "row-line" }, rowTiles, v.seat === null ? null : discardBox),
    );

    const melds = h("section", {
      class: "melds",
      "aria-label": t("table.melds"),
      "data-testid": "melds",
    });
    if (!v.table.length)
      melds.append(h("p", { class: "muted melds-empty" }, t("table.melds.empty")));
    const consumed = new Set(v.consumed);
    v.table.forEach((m, k) => {
      const box = h("button", {
        type: "button",
        class: `meld kind-${m.kind}`,
        "data-drop": `meld:${k}`,
        "data-act": `meld:${k}`,
        "data-key": `meld:${k}`,
        "data-testid": `meld-${k}`,
        "aria-label": meldLabel(faces, k + 1, m.kind, m.tiles, m.stands_for),
      });
      if (flash && flash.melds.includes(k)) flashEl(box, flash);
      m.tiles.forEach((id, i) => {
        const el = tileEl(faces, id, {
          small: true,
          consumed: consumed.has(id),
          owner: m.owners[i],
          ownerInitial: m.owners[i] === null ? undefined : ownerInitial(s, m.owners[i]),
          stands: m.stands_for?.[i] ?? null,
        });
        if (faceOf(id).joker) {
          el.dataset.drop = `joker:${k}:${id}`;
          el.dataset.act = `joker:${k}:${id}`;
          el.classList.add("meld-joker");
        }
        box.append(el);
      });
      melds.append(box);
    });
    return h(
      "div",
      { class: "center" },
      h(
        "div",
        { class: "pile" },
        h("div", { class: "stock-box" }, h("span", { class: "lbl" }, t("table.stock")), stock),
        atuBox,
      ),
      rowBox,
      h(
        "div",
        { class: "melds-wrap" },
        melds,
        h(
          "span",
          {
            class: "melds-more above",
            "data-testid": "melds-more-above",
            hidden: true,
            "aria-hidden": "true",
          },
          `▲ ${t("table.melds.more")}`,
        ),
        h(
          "span",
          {
            class: "melds-more below",
            "data-testid": "melds-more-below",
            hidden: true,
            "aria-hidden": "true",
          },
          `▼ ${t("table.melds.more")}`,
        ),
      ),
    );
  }

  /** The melds' cues: shown while melds are hidden above or below their scrolled area. */
  private meldsCue(): void {
    const el = this.root.querySelector<HTMLElement>(".melds");
    if (!el) return;
    const wrap = el.parentElement!;
    // A cue while a meld is cut off at that edge (the area's own padding scrolls too, so
    // its scroll position alone would show a cue with every meld whole).
    const update = () => {
      const area = el.getBoundingClientRect();
      let below = false;
      let above = false;
      for (const m of el.querySelectorAll<HTMLElement>(".meld")) {
        const r = m.getBoundingClientRect();
        below ||= r.bottom > area.bottom + 1;
        above ||= r.top < area.top - 1;
      }
      wrap.querySelector<HTMLElement>(".melds-more.below")!.hidden = !below;
      wrap.querySelector<HTMLElement>(".melds-more.above")!.hidden = !above;
      el.dataset.more = below ? "below" : above ? "above" : "";
    };
    el.addEventListener("scroll", update, { passive: true });
    // The area's height changes without a redraw or a scroll too (the status line or the
    // move log wrapping differently, the window turned), and so may a meld's (its tiles
    // laid out again): the cues follow.
    this.cueWatch?.disconnect();
    this.cueWatch = typeof ResizeObserver === "function" ? new ResizeObserver(update) : null;
    this.cueWatch?.observe(el);
    for (const m of el.querySelectorAll<HTMLElement>(".meld")) this.cueWatch?.observe(m);
    update();
  }

  private controls(s: TableState, v: SeatView, variant: VariantFacts): HTMLElement {
    const lay = layText(s, variant);
    const mine = myTurn(s);
    const hint = h("div", { class: "hint", "data-testid": "hint", "aria-live": "polite" });
    if (s.preview?.block) {
      // Not offered: why (a deep take before the opening), and only a way out.
      hint.append(
        h(
          "span",
          { class: "lock-reason", "data-testid": "row-blocked", "data-code": s.preview.block.code },
          blockText(s.preview.block),
        ),
        h(
          "button",
          {
            type: "button",
            class: "small",
            "data-act": "preview-cancel",
            "data-key": "preview-cancel",
            "data-testid": "preview-cancel",
          },
          t("common.close"),
        ),
      );
    } else if (s.preview) {
      hint.append(
        h(
          "span",
          { class: "preview-text", "data-testid": "row-preview" },
          previewText(variant.faces, s.preview.tiles),
        ),
        h(
          "button",
          {
            type: "button",
            class: "primary small",
            "data-act": "preview-take",
            "data-key": "preview-take",
            "data-testid": "preview-take",
          },
          takesRow(variant) ? t("table.takeRow.confirm") : t("table.takeDiscard"),
        ),
        h(
          "button",
          {
            type: "button",
            class: "small",
            "data-act": "preview-cancel",
            "data-key": "preview-cancel",
            "data-testid": "preview-cancel",
          },
          t("common.cancel"),
        ),
      );
    } else if (lay.reason) {
      hint.append(h("span", { class: "lock-reason", "data-testid": "lay-reason" }, lay.reason));
    } else if (s.selection?.kind === "rack") {
      hint.append(h("span", { class: "muted" }, t("table.select.hint")));
    } else if (s.atuOnRack) {
      hint.append(h("span", { class: "muted" }, t("table.atu.pending")));
    }
    const symbols = sortSymbols(variant.faces);
    const buttons = h(
      "div",
      { class: "ctl-buttons" },
      h(
        "button",
        {
          type: "button",
          class: "lay primary",
          disabled: !lay.enabled,
          "data-act": "lay",
          "data-key": "lay",
          "data-testid": "lay",
          title: lay.reason || null,
        },
        lay.label,
      ),
      s.pending || s.atuOnRack
        ? h(
            "button",
            {
              type: "button",
              class: "small",
              "data-act": "pending-cancel",
              "data-key": "pending-cancel",
              "data-testid": "pending-cancel",
            },
            t("table.pending.cancel"),
          )
        : null,
      v.joker_button
        ? h(
            "button",
            {
              type: "button",
              class: "small",
              disabled: !(mine && v.phase === "take") || v.button_used || v.joker_credits < 1,
              "data-act": "joker-button",
              "data-key": "joker-button",
              "data-testid": "joker-button",
              "aria-label": t("table.jokerButton", { n: s.room.accountCredits ?? v.joker_credits }),
              title: t("table.jokerButton", { n: s.room.accountCredits ?? v.joker_credits }),
            },
            h(
              "span",
              { class: "long" },
              t("table.jokerButton", { n: s.room.accountCredits ?? v.joker_credits }),
            ),
            h(
              "span",
              { class: "short", "aria-hidden": "true" },
              `★ ${s.room.accountCredits ?? v.joker_credits}`,
            ),
          )
        : null,
      h("span", { class: "spacer" }),
      h(
        "button",
        {
          type: "button",
          class: "small",
          "data-act": "sort-suit",
          "data-key": "sort-suit",
          "data-testid": "sort-suit",
          title: t("table.sort.suit"),
        },
        h("span", { class: "long" }, t("table.sort.suit")),
        h("span", { class: "short", "aria-hidden": "true" }, symbols.suit),
      ),
      h(
        "button",
        {
          type: "button",
          class: "small",
          "data-act": "sort-rank",
          "data-key": "sort-rank",
          "data-testid": "sort-rank",
          title: t("table.sort.rank"),
        },
        h("span", { class: "long" }, t("table.sort.rank")),
        h("span", { class: "short", "aria-hidden": "true" }, symbols.rank),
      ),
    );
    const own = v.seat !== null ? v.seats[v.seat] : null;
    return h(
      "section",
      { class: "controls" },
      h(
        "div",
        {
          class: `status${mine ? " mine" : ""}`,
          "data-testid": "status",
          "data-phase": v.phase,
          "data-turn": v.turn,
          "data-first-turn": own?.first_turn ? "1" : "0",
          "data-opened": own?.opened ? "1" : "0",
          "data-busy": s.busy ? "1" : "0",
        },
        h(
          "span",
          { "data-testid": botPlaysMe(s) ? "bot-for-you" : null },
          statusText(s, v, variant),
        ),
        botPlaysMe(s)
          ? h(
              "button",
              {
                type: "button",
                class: "small primary",
                "data-act": "take-back",
                "data-key": "take-back",
                "data-testid": "take-back",
              },
              t("table.takeBack"),
            )
          : null,
        mine && !botPlaysMe(s)
          ? h("span", { class: "timer", "data-timer": "1" }, timeLeftText(s))
          : null,
      ),
      buttons,
      hint,
    );
  }

  private rack(s: TableState, v: SeatView, variant: VariantFacts): HTMLElement {
    const rack = s.rack!;
    const cols = rack.cols;
    const faces = variant.faces;
    const grid = h("div", {
      class: "rack",
      role: "group",
      "aria-label": t("table.rack"),
      "data-testid": "rack",
      "data-cols": cols,
      style: { gridTemplateRows: `repeat(${rack.rows}, var(--label-h) var(--slot-h))` },
    });
    const inForm = new Map<number, string>();
    // Tiles side by side that are fewer than the shortest run or set (Remi 101's pairs that
    // are not doubles) are tiles kept together, not a wrong formation: no ✗ on them.
    const mins = variant.meld_min ?? {};
    const shortest = Math.min(mins.run ?? variant.min_meld, mins.set ?? variant.min_meld);
    for (const f of formations(s)) {
      const a = answerOf(s, f);
      const partial = !!a && !a.valid && f.tiles.length < shortest;
      const cls = a && !partial ? (a.valid ? "valid" : "invalid") : "unknown";
      for (const slot of f.slots) inForm.set(slot, cls);
      const label = h("div", {
        class: `flabel ${cls}`,
        "data-testid": `formation-${f.start}`,
        style: {
          gridRow: String(f.row * 2 + 1),
          gridColumn: `${(f.start % cols) + 1} / span ${f.slots.length}`,
        },
        title: a && !a.valid && !partial ? reason(a.code, a.message) : null,
      });
      if (a && a.valid)
        label.append(
          h("span", { class: "fval" }, String(a.value)),
          h("span", { class: "fkind" }, t(`table.kind.${a.kind}`)),
        );
      else if (a && !partial) label.append(h("span", { class: "fbad" }, "✗"));
      grid.append(label);
    }
    const pendingSet = new Set(s.pending?.tiles ?? []);
    const sel = s.selection?.kind === "rack" ? s.selection.slot : null;
    const focusSlot = this.focusKey?.startsWith("slot:")
      ? Number(this.focusKey.slice(5))
      : (sel ?? 0);
    rack.slots.forEach((id, i) => {
      const style = {
        gridRow: String(Math.floor(i / cols) * 2 + 2),
        gridColumn: String((i % cols) + 1),
      };
      const common = {
        type: "button",
        "data-act": `slot:${i}`,
        "data-drop": `slot:${i}`,
        "data-key": `slot:${i}`,
        "data-slot": i,
        tabindex: i === focusSlot ? 0 : -1,
        style,
      };
      if (id === null) {
        grid.append(
          h("button", {
            ...common,
            class: "slot empty",
            "aria-label": t("table.slot", { n: i + 1 }),
            "data-testid": `slot-${i}`,
          }),
        );
        return;
      }
      const el = tileEl(faces, id, { tag: "button", consumed: v.consumed.includes(id) });
      Object.entries(common).forEach(([k, val]) => {
        if (k === "style") Object.assign(el.style, val);
        else el.setAttribute(k, String(val));
      });
      el.dataset.drag = `rack:${i}`;
      el.dataset.testid = `slot-${i}`;
      el.classList.add("slot", "rtile-hand");
      const f = inForm.get(i);
      if (f) el.classList.add(`f-${f}`);
      if (pendingSet.has(id)) el.classList.add("pending");
      if (s.atuOnRack && id === v.atu) el.classList.add("pending", "atu-pending");
      if (sel === i) {
        el.classList.add("selected");
        el.setAttribute("aria-pressed", "true");
      }
      grid.append(el);
    });
    const box = h("section", { class: "rack-box" }, this.rackHead(s, v, variant), grid);
    // The slots' width follows the rack's columns on this screen (styles.css --slot-w).
    box.style.setProperty("--cols", String(cols));
    return box;
  }

  /** Above the rack: the seat's way to its opening (at every turn, the others' too) and
   * the button that lays the hand out in the engine's best melds. */
  private rackHead(s: TableState, v: SeatView, variant: VariantFacts): HTMLElement {
    const own = v.seat !== null ? v.seats[v.seat] : null;
    const lay = layState(s);
    const lock = s.lock;
    const parts: (string | HTMLElement)[] = [];
    let done = false;
    if (own?.opened) {
      done = true;
      parts.push(t("table.open.done", { n: own.credits }));
    } else {
      const threshold = lock?.threshold ?? variant.opening.threshold;
      parts.push(
        h(
          "strong",
          null,
          threshold
            ? t("table.open.progress", { value: lay.value, threshold })
            : t("table.open.label"),
        ),
      );
      if (variant.opening.run_required)
        parts.push(lock?.has_run && lay.count ? t("table.open.run.yes") : t("table.open.run.no"));
      const needed = lock?.doubles_needed ?? variant.opening.doubles;
      if (variant.opening.doubles !== null && needed)
        parts.push(t("table.open.doubles", { n: lay.doubles, needed }));
    }
    // "Opening: 15 of 45 · run ✓"; with no points to reach, "Opening: run ✓".
    const bare = !done && !(lock?.threshold ?? variant.opening.threshold);
    const progress = h(
      "span",
      {
        class: `open-progress${done ? " done" : ""}`,
        "data-testid": "open-progress",
        "data-value": done ? null : lay.value,
        "data-opened": done ? "1" : "0",
      },
      ...parts.flatMap((p, i) => (i ? [i === 1 && bare ? " " : " · ", p] : [p])),
    );
    return h(
      "div",
      { class: "rack-head" },
      progress,
      h(
        "a",
        {
          class: "howto-link",
          href: `#/howto/${encodeURIComponent(variant.id)}`,
          target: "_blank",
          rel: "noopener",
          title: t("howto.link"),
          "aria-label": t("howto.link"),
          "data-testid": "howto-link",
        },
        "?",
      ),
      h(
        "button",
        {
          type: "button",
          class: "small arrange",
          "data-act": "arrange",
          "data-key": "arrange",
          "data-testid": "arrange",
          title: t("table.arrange.title"),
          disabled: !!s.pending || s.atuOnRack,
        },
        t("table.arrange"),
      ),
    );
  }

  private summary(s: TableState, faces: Faces): HTMLElement {
    const { view: v } = s.summary!;
    const res = v.result!;
    const title = s.room.matchOver ? t("summary.match") : t("summary.title");
    const rows = res.breakdown.map((b) => {
      const parts: string[] = [t("summary.laid", { n: b.laid }), t("summary.hand", { n: b.hand })];
      if (b.bonus) parts.push(t("summary.bonus", { n: b.bonus }));
      if (b.atu_pair) parts.push(t("summary.atuPair", { n: b.atu_pair }));
      // Each doubling in words (the engine names them); a bare factor only if it names none.
      const dbl = b.doublings ?? [];
      if (dbl.length) for (const code of dbl) parts.push(t(`summary.dbl.${code}`));
      else if (b.multiplier !== 1) parts.push(t("summary.mult", { n: b.multiplier }));
      const noteKey = `summary.note.${b.note}`;
      // The engine writes the notes in English; Romanian has its own words for them.
      const note = getLang() === "ro" && t(noteKey) !== noteKey ? t(noteKey) : b.note;
      const hand = (v.hands?.[b.seat] ?? []).map((id) => tileEl(faces, id, { small: true }));
      return h(
        "li",
        {
          class: `sum-seat${res.out === b.seat ? " out" : ""}`,
          "data-testid": `summary-seat-${b.seat}`,
        },
        h(
          "div",
          { class: "sum-head" },
          h("span", { class: `owner-dot owner${b.seat}` }, ownerInitial(s, b.seat)),
          h("strong", null, seatNameEl(s, b.seat)),
          h("span", { class: "muted" }, note),
          h(
            "span",
            { class: `sum-total ${b.total >= 0 ? "pos" : "neg"}` },
            b.total > 0 ? `+${b.total}` : String(b.total),
          ),
        ),
        h("div", { class: "sum-parts muted" }, parts.join(" · ")),
        h("div", { class: "sum-hand" }, hand.length ? hand : h("span", { class: "muted" }, "—")),
      );
    });
    const winners =
      s.room.matchOver && s.room.winners
        ? h(
            "p",
            { class: "winners" },
            tParts("scores.winners", {
              names: h("span", null, namesEl(s.room.winners.map((x) => seatName(s, x)))),
            }),
          )
        : null;
    return h(
      "div",
      { class: "modal-back", "data-act": "summary-close" },
      h(
        "div",
        {
          class: "modal",
          role: "dialog",
          "aria-modal": "true",
          "aria-label": title,
          "data-testid": "summary",
        },
        h("h2", null, title),
        h(
          "p",
          null,
          res.out !== null
            ? tParts("summary.out", { name: seatNameEl(s, res.out) })
            : t("summary.stock"),
        ),
        winners,
        v.atu !== null
          ? h(
              "p",
              { class: "sum-atu", "data-testid": "summary-atu" },
              t("summary.atu"),
              " ",
              tileEl(faces, v.atu, { small: true }),
            )
          : null,
        h("ol", { class: "sum-list" }, rows),
        s.room.matchOver || s.room.nextRoundIn === null
          ? null
          : h("p", { class: "muted" }, t("summary.next", { n: Math.round(s.room.nextRoundIn) })),
        s.room.matchOver && s.room.again ? againBox(s.room.again) : null,
        h(
          "div",
          { class: "row end" },
          h(
            "button",
            { type: "button", "data-act": "scores", "data-key": "sum-scores" },
            t("table.scores"),
          ),
          h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-act": "summary-close",
              "data-key": "summary-close",
              "data-testid": "summary-close",
            },
            t("summary.continue"),
          ),
        ),
      ),
    );
  }
}

/** A finished match's "play again": the same settings in a new room where its players are
 * invited; "join" once another of them made it. */
export function againBox(again: "new" | "join" | "solo"): HTMLElement {
  return h(
    "div",
    { class: "again", "data-testid": "again" },
    h(
      "p",
      { class: "muted" },
      t(again === "join" ? "again.ready" : again === "solo" ? "again.solo" : "again.hint"),
    ),
    h(
      "button",
      {
        type: "button",
        class: "primary big",
        "data-act": "again",
        "data-key": "again",
        "data-testid": "play-again",
        "data-again": again,
      },
      again === "join" ? t("again.join") : t("again.button"),
    ),
  );
}
