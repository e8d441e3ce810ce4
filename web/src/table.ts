// The Remi table: seats, stock, atu, discard row, melds, the rack with its formations,
// the lay button and every move by tap and by drag. The server decides everything:
// values, the opening lock and refusals come from its answers; the browser only asks.

import { clear, h, toast } from "./dom";
import { getLang, reason, t } from "./i18n";
import { Rack, sameLayout, type Formation } from "./rack";
import { faceOf, familyOf, rankKey, suitKey, tileEl, tileShort, type Family } from "./tiles";
import type { FormationAnswer, OpeningLock, Scores, SeatMeta, SeatView } from "./types";

export interface TableState {
  view: SeatView | null;
  seats: SeatMeta[];
  deadline: number | null;
  scores: Scores | null;
  round: number | null;
  status: string;
  settings: { variant: string; seats: number; end?: unknown } | null;
  rack: (number | null)[] | null;
  matchOver: boolean;
  winners: number[] | null;
}

export interface TableHost {
  action(a: Record<string, unknown>): Promise<void>;
  queryFormations(formations: number[][]): Promise<{ answers: FormationAnswer[]; lock: OpeningLock | null }>;
  queryRowPreview(index: number): Promise<number[]>;
  saveRack(layout: (number | null)[]): void;
  leave(): void;
  openScores(): void;
  langButton(): HTMLElement;
}

type Selection =
  | { kind: "rack"; slot: number }
  | { kind: "row"; index: number }
  | { kind: "stock" }
  | { kind: "atu" }
  | null;

interface Pending {
  kind: "row" | "discard";
  index: number;
  taken: number;
  tiles: number[];
}

const COLS = 14;

const suitOf = (id: number) => (faceOf(id).joker ? 9 : faceOf(id).suit);
const rankOf = (id: number) => (faceOf(id).joker ? 99 : faceOf(id).rank);
/** By suit: runs of consecutive ranks apart, else whole suits apart, else packed. */
const SUIT_SPLITS = [
  (a: number, b: number) => suitOf(a) !== suitOf(b) || (suitOf(b) !== 9 && rankOf(b) - rankOf(a) !== 1),
  (a: number, b: number) => suitOf(a) !== suitOf(b),
  () => false,
];
/** By rank: each rank apart, else packed. */
const RANK_SPLITS = [(a: number, b: number) => rankOf(a) !== rankOf(b), () => false];

/** The server's saved layout for this hand, padded to whole rows; null when there is none
 * (the server then sends the bare hand, without a single gap: we arrange it ourselves). */
function usableLayout(layout: (number | null)[] | null, hand: number[]): (number | null)[] | null {
  if (!layout || !layout.length || !layout.includes(null)) return null;
  const tiles = layout.filter((x): x is number => x !== null);
  const handSet = new Set(hand);
  if (tiles.length !== hand.length || !tiles.every((x) => handSet.has(x))) return null;
  const out = [...layout];
  while (out.length % COLS !== 0) out.push(null);
  return out;
}

export class Table {
  state: TableState | null = null;
  private rack: Rack | null = null;
  private rackRound: string | null = null;
  private selection: Selection = null;
  private pending: Pending | null = null;
  private atuOnRack = false;
  private preview: { index: number; tiles: number[] } | null = null;
  private answers = new Map<string, FormationAnswer>();
  private lock: OpeningLock | null = null;
  private queryGen = 0;
  private busy = false;
  private dropHint: number | null = null;
  private summary: { view: SeatView; seats: SeatMeta[] } | null = null;
  private summaryOpen = false;
  private seenOverKey: string | null = null;
  private dragging = false;
  private deferredRender = false;
  private timerHandle = 0;
  private rackTimer = 0;
  private lastSentLayout: (number | null)[] | null = null;
  private focusKey: string | null = null;
  private focusExplicit = false;
  private connection: "open" | "lost" | "connecting" | "closed" = "connecting";

  constructor(
    private root: HTMLElement,
    private host: TableHost,
  ) {
    root.classList.add("table-root");
    root.addEventListener("click", (e) => this.onClick(e));
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    root.addEventListener("keydown", (e) => this.onKey(e));
    this.timerHandle = window.setInterval(() => this.tick(), 500);
  }

  dispose(): void {
    window.clearInterval(this.timerHandle);
    window.clearTimeout(this.rackTimer);
  }

  // ---------------------------------------------------------------- state

  get view(): SeatView | null {
    return this.state?.view ?? null;
  }

  get family(): Family {
    return familyOf(this.view?.variant_id ?? this.state?.settings?.variant ?? "remi");
  }

  get me(): number | null {
    return this.view?.seat ?? null;
  }

  get myTurn(): boolean {
    const v = this.view;
    return !!v && !v.over && v.seat !== null && v.turn === v.seat;
  }

  setConnection(status: "open" | "lost" | "connecting" | "closed"): void {
    this.connection = status;
    this.renderBanner();
  }

  update(state: TableState): void {
    const prev = this.state?.view ?? null;
    this.state = state;
    const v = state.view;
    if (v && v.over && v.result) {
      const key = `${state.round}:${v.result.scores.join(",")}`;
      if (this.seenOverKey !== key) {
        this.seenOverKey = key;
        this.summary = { view: v, seats: state.seats };
        this.summaryOpen = true;
        this.pending = null;
        this.preview = null;
        this.selection = null;
        this.atuOnRack = false;
      }
    }
    if (v && v.seat !== null) this.syncRack(prev, v, state.rack);
    // A pending take that can no longer be made (turn passed, row changed) is dropped.
    if (this.pending && v && (!this.myTurn || v.phase !== "take")) {
      this.pending = null;
      this.syncRack(v, v, null);
    }
    if (this.atuOnRack && v && (v.atu === null || v.atu_taken_by !== null || !this.myTurn)) {
      this.atuOnRack = false;
      this.syncRack(v, v, null);
    }
    if (this.preview && v && (!this.myTurn || v.phase !== "take")) this.preview = null;
    this.render();
  }

  private rackKeep(v: SeatView): number[] {
    const keep = [...v.hand];
    if (this.pending) keep.push(...this.pending.tiles.filter((x) => !keep.includes(x)));
    if (this.atuOnRack && v.atu !== null && !keep.includes(v.atu)) keep.push(v.atu);
    return keep;
  }

  private roundKey(v: SeatView): string {
    return `${this.state?.round ?? "?"}:${v.variant_id}`;
  }

  private syncRack(prev: SeatView | null, v: SeatView, serverLayout: (number | null)[] | null): void {
    const family = familyOf(v.variant_id);
    const minRows = family === "A" ? 2 : 3;
    const key = this.roundKey(v);
    const newRound = this.rack === null || this.rackRound !== key || (prev?.over && !v.over);
    const before = this.rack ? [...this.rack.slots] : null;
    if (newRound) {
      this.rackRound = key;
      this.answers.clear();
      this.lock = null;
      const rack = new Rack(COLS, minRows);
      const saved = usableLayout(serverLayout, v.hand);
      if (saved) {
        rack.slots = saved;
        while (rack.rows < minRows) rack.addRow();
      } else {
        rack.arrange(v.hand, suitKey, SUIT_SPLITS, minRows);
      }
      this.rack = rack;
    }
    const rack = this.rack!;
    const keep = this.rackKeep(v);
    const present = new Set(rack.tiles());
    const arriving = keep.filter((x) => !present.has(x));
    if (arriving.length && this.dropHint !== null) {
      if (rack.slots[this.dropHint] === null) rack.slots[this.dropHint] = arriving[0];
      this.dropHint = null;
    }
    rack.reconcile(keep);
    if (!before || !sameLayout(before, rack.slots) || newRound) this.rackChanged();
  }

  /** The rack moved: tell the server (layout survives a rejoin) and ask about formations. */
  private rackChanged(): void {
    this.scheduleRackSave();
    this.askFormations();
  }

  private scheduleRackSave(): void {
    window.clearTimeout(this.rackTimer);
    this.rackTimer = window.setTimeout(() => {
      if (!this.rack || !this.view) return;
      if (this.busy) {
        // A move is on its way: the hand is about to change; save after it.
        this.scheduleRackSave();
        return;
      }
      const hand = new Set(this.view.hand);
      const layout = this.rack.slots.map((x) => (x !== null && hand.has(x) ? x : null));
      if (this.lastSentLayout && sameLayout(layout, this.lastSentLayout)) return;
      this.lastSentLayout = layout;
      this.host.saveRack(layout);
    }, 250);
  }

  private minLen(): number {
    return this.family === "B" ? 2 : 3;
  }

  private formations(): Formation[] {
    return this.rack ? this.rack.formations(this.minLen()) : [];
  }

  private askTimer = 0;

  /** Ask the server about the rack's formations (debounced: the socket has a budget). */
  private askFormations(): void {
    window.clearTimeout(this.askTimer);
    this.askTimer = window.setTimeout(() => this.askNow(), 120);
  }

  private askNow(): void {
    const v = this.view;
    if (!v || v.over) return;
    const forms = this.formations().map((f) => f.tiles);
    const gen = ++this.queryGen;
    this.host
      .queryFormations(forms)
      .then(({ answers, lock }) => {
        if (gen !== this.queryGen) return;
        forms.forEach((tiles, i) => {
          if (answers[i]) this.answers.set(tiles.join(","), answers[i]);
        });
        this.lock = lock;
        this.render();
      })
      .catch(() => {
        /* the next change asks again */
      });
  }

  // ---------------------------------------------------------------- names

  seatName(seat: number): string {
    const meta = this.state?.seats.find((s) => s.seat === seat);
    if (seat === this.me) return meta?.name ? `${meta.name} (${t("table.you")})` : t("table.you");
    if (meta?.name) return meta.name;
    if (meta?.is_bot) return `${t("table.bot")} ${seat + 1}`;
    return t("room.seat", { n: seat + 1 });
  }

  private ownerInitial(seat: number): string {
    const meta = this.state?.seats.find((s) => s.seat === seat);
    const n = meta?.name?.trim();
    return n ? n[0].toUpperCase() : String(seat + 1);
  }

  // ---------------------------------------------------------------- render

  render(): void {
    if (this.dragging) {
      this.deferredRender = true;
      return;
    }
    const active = document.activeElement as HTMLElement | null;
    if (!this.focusExplicit && active && this.root.contains(active) && active.dataset.key) this.focusKey = active.dataset.key;
    this.focusExplicit = false;
    const scrollRow = this.root.querySelector(".row-tiles")?.scrollLeft ?? null;
    const scrollMelds = this.root.querySelector(".melds")?.scrollTop ?? null;
    clear(this.root);
    const v = this.view;
    const page = h("div", { class: `table fam-${this.family}`, "data-testid": "table" });
    page.append(this.renderHeader());
    if (!v) {
      page.append(h("div", { class: "table-wait" }, t("table.waitingDeal")));
      this.root.append(page);
      this.renderBanner();
      return;
    }
    if (v.seat === null || !this.rack) {
      // A spectator: the table without a rack.
      page.append(this.renderSeats(v), this.renderCenter(v), h("section", { class: "controls" }, h("div", { class: "status" }, this.statusText(v))));
    } else {
      page.append(this.renderSeats(v), this.renderCenter(v), this.renderControls(v), this.renderRack(v));
    }
    this.root.append(page);
    if (this.summaryOpen && this.summary) this.root.append(this.renderSummary());
    this.renderBanner();
    const rowEl = this.root.querySelector(".row-tiles");
    if (rowEl) rowEl.scrollLeft = scrollRow === null ? rowEl.scrollWidth : Math.max(scrollRow, rowEl.scrollWidth);
    const meldsEl = this.root.querySelector(".melds");
    if (meldsEl && scrollMelds !== null) meldsEl.scrollTop = scrollMelds;
    if (this.focusKey) {
      const el = this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(this.focusKey)}"]`);
      if (el && document.activeElement !== el) el.focus({ preventScroll: true });
    }
  }

  private renderBanner(): void {
    let el = document.getElementById("conn-banner");
    if (!el) {
      el = h("div", { id: "conn-banner", class: "banner", role: "status", "data-testid": "conn-banner" });
      document.body.appendChild(el);
    }
    const lost = this.connection === "lost";
    el.textContent = lost ? t("table.reconnecting") : "";
    el.classList.toggle("show", lost);
  }

  private renderHeader(): HTMLElement {
    const v = this.view;
    const variant = v?.variant_id ?? this.state?.settings?.variant ?? "";
    return h(
      "header",
      { class: "tbar" },
      h("button", { type: "button", class: "icon back", "aria-label": t("table.back"), title: t("table.back"), "data-act": "leave", "data-key": "leave", "data-testid": "leave" }, "←"),
      h(
        "div",
        { class: "ttitle" },
        h("span", { class: "variant" }, variant ? t(`variant.${variant}`) : ""),
        this.state?.round ? h("span", { class: "round muted" }, t("table.round", { n: this.state.round })) : null,
      ),
      h("button", { type: "button", class: "scores-btn", "data-act": "scores", "data-key": "scores", "data-testid": "scores-open" }, t("table.scores")),
      this.host.langButton(),
    );
  }

  private renderSeats(v: SeatView): HTMLElement {
    const list = h("ol", { class: "seats", "aria-label": "seats" });
    const n = v.players;
    const me = v.seat ?? 0;
    for (let k = 1; k <= n; k++) {
      const s = (me + k) % n; // others first, in turn order; me last
      const info = v.seats[s];
      const meta = this.state?.seats.find((x) => x.seat === s);
      const turn = !v.over && v.turn === s;
      const badges: HTMLElement[] = [];
      if (meta?.is_bot) badges.push(h("span", { class: "badge bot", "data-testid": `badge-bot-${s}` }, t("table.bot")));
      else if (meta?.bot_playing) badges.push(h("span", { class: "badge bot" }, t("table.bot")));
      if (meta?.away) badges.push(h("span", { class: "badge away", "data-testid": `badge-away-${s}` }, t("table.away")));
      if (meta?.unresponsive) badges.push(h("span", { class: "badge away" }, t("table.unresponsive")));
      list.append(
        h(
          "li",
          { class: `seat${turn ? " turn" : ""}${s === me ? " mine" : ""}`, "data-seat": s, "data-testid": `seat-${s}`, "aria-current": turn ? "true" : null },
          h("div", { class: "seat-name" }, h("span", { class: `owner-dot owner${s}`, "aria-hidden": "true" }, this.ownerInitial(s)), h("span", { class: "nm" }, this.seatName(s))),
          h(
            "div",
            { class: "seat-info" },
            h("span", { class: "count", title: t("table.tiles", { n: info.tiles }), "aria-label": t("table.tiles", { n: info.tiles }) }, h("span", { class: "mini-tile", "aria-hidden": "true" }), String(info.tiles)),
            h(
              "span",
              { class: `opened ${info.opened ? "yes" : "no"}`, title: info.opened ? t("table.opened") : t("table.notopened"), "data-testid": `opened-${s}` },
              h("span", { "aria-hidden": "true" }, info.opened ? "✓" : "–"),
              h("span", { class: "lbl-long" }, info.opened ? t("table.opened") : t("table.notopened")),
            ),
            h("span", { class: "total", title: t("table.total", { n: meta?.total ?? 0 }), "data-testid": `total-${s}` }, h("span", { class: "lbl-long" }, "total "), h("span", { class: "sigma", "aria-hidden": "true" }, "Σ"), String(meta?.total ?? 0)),
          ),
          h("div", { class: "seat-badges" }, badges, turn ? h("span", { class: "timer", "data-timer": "1" }, this.timeLeftText()) : null),
        ),
      );
    }
    return list;
  }

  private timeLeftText(): string {
    const d = this.state?.deadline;
    if (!d) return "";
    const s = Math.max(0, Math.ceil(d - Date.now() / 1000));
    return t("table.left", { s });
  }

  private tick(): void {
    for (const el of this.root.querySelectorAll<HTMLElement>("[data-timer]")) el.textContent = this.timeLeftText();
  }

  private renderCenter(v: SeatView): HTMLElement {
    const fam = this.family;
    const canTake = this.myTurn && v.phase === "take";
    const stock = h(
      "button",
      {
        type: "button",
        class: `stock${canTake ? " can" : ""}${this.selection?.kind === "stock" ? " selected" : ""}`,
        "data-act": "stock",
        "data-drag": "stock",
        "data-key": "stock",
        "data-testid": "stock",
        "aria-label": `${t("table.stock.draw")}: ${t("table.stock.count", { n: v.stock_count })}`,
      },
      h("span", { class: "stock-count" }, String(v.stock_count)),
    );
    const atuBox = h("div", { class: "atu-box" }, h("span", { class: "lbl" }, t("table.atu")));
    if (fam === "A" && v.atu !== null) {
      const taken = v.atu_taken_by !== null;
      const el = tileEl(fam, v.atu, { tag: "button" });
      el.classList.add("atu");
      if (taken || this.atuOnRack) el.classList.add("faded");
      if (this.selection?.kind === "atu") el.classList.add("selected");
      el.dataset.act = "atu";
      el.dataset.key = "atu";
      el.dataset.testid = "atu";
      if (!taken && !this.atuOnRack) el.dataset.drag = "atu";
      el.setAttribute("type", "button");
      atuBox.append(el);
      if (taken) atuBox.append(h("span", { class: "muted small" }, t("table.atu.taken", { name: this.seatName(v.atu_taken_by!) })));
    } else {
      atuBox.hidden = fam !== "A";
    }
    // The discard row, oldest to newest, ending with the discard box.
    const rowTiles = h("div", { class: "row-tiles", "data-drop": "discard", "aria-label": t("table.row") });
    if (v.row_offset > 0) rowTiles.append(h("span", { class: "row-hidden muted" }, t("table.row.hidden", { n: v.row_offset })));
    const pendingIdx = this.pending?.index ?? null;
    v.row.forEach((id, k) => {
      const index = v.row_offset + k;
      const el = tileEl(fam, id, { tag: "button" });
      el.setAttribute("type", "button");
      el.classList.add("rtile");
      el.dataset.act = `row:${index}`;
      el.dataset.drag = `row:${index}`;
      el.dataset.key = `row:${index}`;
      el.dataset.testid = `row-${index}`;
      const prevIdx = this.preview?.index ?? pendingIdx;
      if (prevIdx !== null && index >= prevIdx) {
        el.classList.add(index === prevIdx ? "chosen" : "come-along");
        if (this.pending) el.classList.add("in-hand");
      }
      if (canTake && index === v.row_length - 1) el.classList.add("can");
      rowTiles.append(el);
    });
    if (!v.row.length) rowTiles.append(h("span", { class: "muted row-empty" }, t("table.row.empty")));
    const discardBox = h(
      "button",
      {
        type: "button",
        class: `discard-box${this.myTurn && v.phase === "build" ? " can" : ""}`,
        "data-drop": "discard",
        "data-act": "discard",
        "data-key": "discard",
        "data-testid": "discard",
      },
      t("table.discard"),
    );
    const rowBox = h("section", { class: "row-box", "aria-label": t("table.row") }, h("div", { class: "lbl" }, t("table.row")), h("div", { class: "row-line" }, rowTiles, discardBox));

    const melds = h("section", { class: "melds", "aria-label": t("table.melds"), "data-testid": "melds" });
    if (!v.table.length) melds.append(h("p", { class: "muted melds-empty" }, t("table.melds.empty")));
    const consumed = new Set(v.consumed);
    v.table.forEach((m, k) => {
      const box = h("button", {
        type: "button",
        class: `meld kind-${m.kind}`,
        "data-drop": `meld:${k}`,
        "data-act": `meld:${k}`,
        "data-key": `meld:${k}`,
        "data-testid": `meld-${k}`,
        "aria-label": t("table.meld", { n: k + 1, kind: t(`table.kind.${m.kind}`) }) + ": " + m.tiles.map((x) => tileShort(fam, x)).join(" "),
      });
      m.tiles.forEach((id, i) => {
        const el = tileEl(fam, id, { small: true, consumed: consumed.has(id), owner: m.owners[i] });
        const own = el.querySelector(".own");
        if (own) own.textContent = this.ownerInitial(m.owners[i]);
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
      h("div", { class: "pile" }, h("div", { class: "stock-box" }, h("span", { class: "lbl" }, t("table.stock")), stock), atuBox),
      rowBox,
      melds,
    );
  }

  private validFormations(): { f: Formation; a: FormationAnswer }[] {
    const out: { f: Formation; a: FormationAnswer }[] = [];
    for (const f of this.formations()) {
      const a = this.answers.get(f.tiles.join(","));
      if (a && a.valid) out.push({ f, a });
    }
    return out;
  }

  private layState(v: SeatView): { enabled: boolean; label: string; reason: string } {
    const valid = this.validFormations();
    const value = valid.reduce((s, x) => s + (x.a.kind === "double" ? 0 : x.a.value), 0);
    const mine = v.seat !== null ? v.seats[v.seat] : null;
    if (this.pending) {
      const taken = this.pending.taken;
      const ok = valid.some((x) => x.f.tiles.includes(taken));
      const label = this.pending.kind === "row" ? t("table.takeRow.send") : t("table.takeDiscard.send");
      return { enabled: ok && !this.busy, label, reason: ok ? "" : t("table.takeRow.need") };
    }
    if (v.over) return { enabled: false, label: t("table.lay"), reason: "" };
    const label = valid.length ? (mine && !mine.opened ? t("table.lay.opening", { value }) : t("table.lay.value", { value })) : t("table.lay");
    if (!this.myTurn || v.phase !== "build") return { enabled: false, label, reason: this.myTurn ? "" : t("table.lay.notturn") };
    if (this.family === "A" && mine?.first_turn) return { enabled: false, label, reason: t("table.phase.first") };
    if (!valid.length) return { enabled: false, label, reason: t("table.lay.none") };
    const lock = this.lock;
    if (lock && lock.locked) return { enabled: false, label, reason: this.lockText(lock) };
    return { enabled: !this.busy, label, reason: "" };
  }

  private lockText(lock: OpeningLock): string {
    if (this.family === "B" && (lock.code === "below_threshold" || lock.code === "run_required") && lock.doubles_needed) {
      return t("table.lay.missing.doubles", { value: lock.value, threshold: lock.threshold ?? 0, doubles: lock.doubles, needed: lock.doubles_needed });
    }
    if (lock.code === "below_threshold" && lock.threshold !== null) {
      const parts = [t("table.lay.missing.points", { missing: Math.max(0, lock.threshold - lock.value), value: lock.value, threshold: lock.threshold })];
      if (lock.run_required && !lock.has_run) parts.push(t("table.lay.missing.run"));
      return parts.join(" · ");
    }
    if (lock.code === "run_required") return t("table.lay.missing.run");
    return reason(lock.code, lock.message);
  }

  private statusText(v: SeatView): string {
    if (v.over) return t("summary.title");
    if (v.seat === null) return t("table.turn.other", { name: this.seatName(v.turn) });
    if (!this.myTurn) return t("table.turn.other", { name: this.seatName(v.turn) });
    const mine = v.seat !== null ? v.seats[v.seat] : null;
    let phase = v.phase === "take" ? (this.family === "B" ? t("table.phase.take101") : t("table.phase.take")) : t("table.phase.build");
    if (this.family === "A" && mine?.first_turn) phase = t("table.phase.first");
    return `${t("table.turn.you")}: ${phase}`;
  }

  private renderControls(v: SeatView): HTMLElement {
    const lay = this.layState(v);
    const hint = h("div", { class: "hint", "data-testid": "hint", "aria-live": "polite" });
    if (this.preview) {
      const along = this.preview.tiles.slice(1);
      hint.append(
        h("span", { class: "preview-text", "data-testid": "row-preview" }, along.length ? t("table.takeRow.preview", { tiles: along.map((x) => tileShort(this.family, x)).join(" ") }) : t("table.takeRow.only")),
        h("button", { type: "button", class: "primary small", "data-act": "preview-take", "data-key": "preview-take", "data-testid": "preview-take" }, this.family === "B" ? t("table.takeDiscard") : t("table.takeRow.confirm")),
        h("button", { type: "button", class: "small", "data-act": "preview-cancel", "data-key": "preview-cancel" }, t("common.cancel")),
      );
    } else if (lay.reason) {
      hint.append(h("span", { class: "lock-reason", "data-testid": "lay-reason" }, lay.reason));
    } else if (this.selection?.kind === "rack") {
      hint.append(h("span", { class: "muted" }, t("table.select.hint")));
    } else if (this.atuOnRack) {
      hint.append(h("span", { class: "muted" }, t("table.atu.pending")));
    }
    const buttons = h(
      "div",
      { class: "ctl-buttons" },
      h("button", { type: "button", class: "lay primary", disabled: !lay.enabled, "data-act": "lay", "data-key": "lay", "data-testid": "lay", title: lay.reason || null }, lay.label),
      this.pending || this.atuOnRack
        ? h("button", { type: "button", class: "small", "data-act": "pending-cancel", "data-key": "pending-cancel", "data-testid": "pending-cancel" }, t("table.pending.cancel"))
        : null,
      v.joker_button
        ? h(
            "button",
            {
              type: "button",
              class: "small",
              disabled: !(this.myTurn && v.phase === "take") || v.button_used,
              "data-act": "joker-button",
              "data-key": "joker-button",
              "data-testid": "joker-button",
              "aria-label": t("table.jokerButton", { n: v.joker_credits }),
              title: t("table.jokerButton", { n: v.joker_credits }),
            },
            h("span", { class: "long" }, t("table.jokerButton", { n: v.joker_credits })),
            h("span", { class: "short", "aria-hidden": "true" }, `★ ${v.joker_credits}`),
          )
        : null,
      h("span", { class: "spacer" }),
      h(
        "button",
        { type: "button", class: "small", "data-act": "sort-suit", "data-key": "sort-suit", "data-testid": "sort-suit", "aria-label": t("table.sort.suit"), title: t("table.sort.suit") },
        h("span", { class: "long" }, t("table.sort.suit")),
        h("span", { class: "short", "aria-hidden": "true" }, this.family === "A" ? "♠♥♦♣" : "●■▲◆"),
      ),
      h(
        "button",
        { type: "button", class: "small", "data-act": "sort-rank", "data-key": "sort-rank", "data-testid": "sort-rank", "aria-label": t("table.sort.rank"), title: t("table.sort.rank") },
        h("span", { class: "long" }, t("table.sort.rank")),
        h("span", { class: "short", "aria-hidden": "true" }, this.family === "A" ? "A‥K" : "1‥13"),
      ),
    );
    return h(
      "section",
      { class: "controls" },
      h(
        "div",
        {
          class: `status${this.myTurn ? " mine" : ""}`,
          "data-testid": "status",
          "data-phase": v.phase,
          "data-turn": v.turn,
          "data-first-turn": v.seat !== null && v.seats[v.seat].first_turn ? "1" : "0",
          "data-opened": v.seat !== null && v.seats[v.seat].opened ? "1" : "0",
          "data-busy": this.busy ? "1" : "0",
        }, h("span", null, this.statusText(v)), this.myTurn ? h("span", { class: "timer", "data-timer": "1" }, this.timeLeftText()) : null),
      buttons,
      hint,
    );
  }

  private renderRack(v: SeatView): HTMLElement {
    const rack = this.rack!;
    const fam = this.family;
    const grid = h("div", {
      class: "rack",
      role: "grid",
      "aria-label": t("table.rack"),
      "data-testid": "rack",
      style: { gridTemplateRows: `repeat(${rack.rows}, var(--label-h) var(--slot-h))` },
    });
    const forms = this.formations();
    const inForm = new Map<number, string>();
    for (const f of forms) {
      const a = this.answers.get(f.tiles.join(","));
      const cls = a ? (a.valid ? "valid" : "invalid") : "unknown";
      for (const s of f.slots) inForm.set(s, cls);
      const label = h("div", {
        class: `flabel ${cls}`,
        "data-testid": `formation-${f.start}`,
        style: { gridRow: String(f.row * 2 + 1), gridColumn: `${(f.start % COLS) + 1} / span ${f.slots.length}` },
        title: a && !a.valid ? reason(a.code, a.message) : null,
      });
      if (a && a.valid) label.append(h("span", { class: "fval" }, String(a.value)), h("span", { class: "fkind" }, t(`table.kind.${a.kind}`)));
      else if (a) label.append(h("span", { class: "fbad" }, "✗"));
      grid.append(label);
    }
    const pendingSet = new Set(this.pending?.tiles ?? []);
    const sel = this.selection?.kind === "rack" ? this.selection.slot : null;
    const focusSlot = this.focusKey?.startsWith("slot:") ? Number(this.focusKey.slice(5)) : sel ?? 0;
    rack.slots.forEach((id, i) => {
      const r = Math.floor(i / COLS);
      const c = i % COLS;
      const style = { gridRow: String(r * 2 + 2), gridColumn: String(c + 1) };
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
        grid.append(h("button", { ...common, class: "slot empty", "aria-label": t("table.slot", { n: i + 1 }), "data-testid": `slot-${i}` }));
        return;
      }
      const el = tileEl(fam, id, { tag: "button", consumed: v.consumed.includes(id) });
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
      if (this.atuOnRack && id === v.atu) el.classList.add("pending", "atu-pending");
      if (sel === i) {
        el.classList.add("selected");
        el.setAttribute("aria-pressed", "true");
      }
      grid.append(el);
    });
    return h("section", { class: "rack-box" }, grid);
  }

  private renderSummary(): HTMLElement {
    const { view: v } = this.summary!;
    const fam = familyOf(v.variant_id);
    const res = v.result!;
    const title = this.state?.matchOver ? t("summary.match") : t("summary.title");
    const rows = res.breakdown.map((b) => {
      const parts: string[] = [];
      parts.push(t("summary.laid", { n: b.laid }));
      parts.push(t("summary.hand", { n: b.hand }));
      if (b.bonus) parts.push(t("summary.bonus", { n: b.bonus }));
      if (b.atu_pair) parts.push(t("summary.atuPair", { n: b.atu_pair }));
      if (b.multiplier !== 1) parts.push(t("summary.mult", { n: b.multiplier }));
      const noteKey = `summary.note.${b.note}`;
      // The engine writes the notes in English; Romanian has its own words for them.
      const note = getLang() === "ro" && t(noteKey) !== noteKey ? t(noteKey) : b.note;
      const hand = (v.hands?.[b.seat] ?? []).map((id) => tileEl(fam, id, { small: true }));
      return h(
        "li",
        { class: `sum-seat${res.out === b.seat ? " out" : ""}`, "data-testid": `summary-seat-${b.seat}` },
        h("div", { class: "sum-head" }, h("span", { class: `owner-dot owner${b.seat}` }, this.ownerInitial(b.seat)), h("strong", null, this.seatName(b.seat)), h("span", { class: "muted" }, note), h("span", { class: `sum-total ${b.total >= 0 ? "pos" : "neg"}` }, b.total > 0 ? `+${b.total}` : String(b.total))),
        h("div", { class: "sum-parts muted" }, parts.join(" · ")),
        h("div", { class: "sum-hand" }, hand.length ? hand : h("span", { class: "muted" }, "—")),
      );
    });
    const winners = this.state?.matchOver && this.state.winners ? h("p", { class: "winners" }, t("scores.winners", { names: this.state.winners.map((s) => this.seatName(s)).join(", ") })) : null;
    return h(
      "div",
      { class: "modal-back", "data-act": "summary-close" },
      h(
        "div",
        { class: "modal", role: "dialog", "aria-modal": "true", "aria-label": title, "data-testid": "summary" },
        h("h2", null, title),
        h("p", null, res.out !== null ? t("summary.out", { name: this.seatName(res.out) }) : t("summary.stock")),
        winners,
        h("ol", { class: "sum-list" }, rows),
        h("div", { class: "row end" },
          h("button", { type: "button", "data-act": "scores", "data-key": "sum-scores" }, t("table.scores")),
          h("button", { type: "button", class: "primary", "data-act": "summary-close", "data-key": "summary-close", "data-testid": "summary-close" }, t("summary.continue")),
        ),
      ),
    );
  }

  // ---------------------------------------------------------------- input

  /** Clicks from the keyboard (Enter/Space: detail 0) and any the pointer path missed.
   * Pointer taps are handled on pointerup, so a re-render between press and release (a bot
   * moved meanwhile) never loses them. */
  private onClick(e: MouseEvent): void {
    if (e.detail > 0 && Date.now() < this.pointerTapUntil) {
      e.preventDefault();
      return;
    }
    const act = this.actOf(e.target as HTMLElement);
    if (!act) return;
    e.preventDefault();
    this.tap(act);
  }

  private pointerTapUntil = 0;

  private actOf(el: HTMLElement): string | null {
    const target = el.closest<HTMLElement>("[data-act]");
    if (!target || !this.root.contains(target)) return null;
    const act = target.dataset.act!;
    // The backdrop closes the summary, the dialog inside it does not.
    if (act === "summary-close" && target.classList.contains("modal-back") && el !== target) return null;
    return act;
  }

  private tap(act: string): void {
    const v = this.view;
    const [kind, a1, a2] = act.split(":");
    switch (kind) {
      case "leave":
        this.host.leave();
        return;
      case "scores":
        this.host.openScores();
        return;
      case "summary-close":
        this.summaryOpen = false;
        this.render();
        return;
      case "sort-suit":
        return this.sort("suit");
      case "sort-rank":
        return this.sort("rank");
      case "lay":
        return void this.lay();
      case "pending-cancel":
        return this.cancelPending();
      case "preview-take":
        return void this.confirmPreview(null);
      case "preview-cancel":
        this.preview = null;
        this.render();
        return;
      case "joker-button":
        return void this.send({ do: "joker_button" });
    }
    if (!v) return;
    const sel = this.selection;
    if (kind === "stock") {
      if (this.myTurn && v.phase === "take") void this.send({ do: "draw" });
      else this.select(sel?.kind === "stock" ? null : null);
      return;
    }
    if (kind === "atu") {
      if (this.atuOnRack) return;
      this.select(sel?.kind === "atu" ? null : { kind: "atu" });
      return;
    }
    if (kind === "slot") {
      const slot = Number(a1);
      const id = this.rack!.slots[slot];
      if (sel?.kind === "rack") {
        if (sel.slot === slot) return this.select(null);
        if (id !== null) return this.select({ kind: "rack", slot }); // another tile: select it instead
        return this.dropOn(sel, `slot:${slot}`);
      }
      if (sel) return this.dropOn(sel, `slot:${slot}`);
      if (id !== null) this.select({ kind: "rack", slot });
      return;
    }
    if (kind === "row") {
      const index = Number(a1);
      if (sel?.kind === "rack") {
        // A tile then the row: the row is where discards go.
        return this.dropOn(sel, "discard");
      }
      void this.showPreview(index);
      return;
    }
    if (kind === "discard") {
      if (sel?.kind === "rack") this.dropOn(sel, "discard");
      return;
    }
    if (kind === "meld" || kind === "joker") {
      if (sel?.kind === "rack") this.dropOn(sel, kind === "joker" ? `joker:${a1}:${a2}` : `meld:${a1}`);
      return;
    }
  }

  private setFocus(key: string): void {
    this.focusKey = key;
    this.focusExplicit = true;
  }

  private select(s: Selection): void {
    this.selection = s;
    if (s?.kind === "rack") this.setFocus(`slot:${s.slot}`);
    this.render();
  }

  /** One move, from a tap sequence or a drop: `src` onto `target` (a data-drop value). */
  private dropOn(src: NonNullable<Selection>, target: string): void {
    const v = this.view;
    const rack = this.rack;
    if (!v || !rack) return;
    const [kind, a1] = target.split(":");
    this.selection = null;
    if (src.kind === "rack") {
      const id = rack.slots[src.slot];
      if (id === null) return this.render();
      if (kind === "slot") {
        rack.move(src.slot, Number(a1));
        this.setFocus(`slot:${rack.slotOf(id)}`);
        this.rackChanged();
        this.render();
        return;
      }
      if (this.pending && id === this.pending.taken && (kind === "meld" || kind === "joker") && this.pending.kind === "discard") {
        // Remi 101: the last discard used at once in a lay-off.
        const melds = this.validFormations().filter((x) => !x.f.tiles.includes(id)).map((x) => this.meldSpec(x));
        void this.send({ do: "take_discard", melds, layoffs: [{ tile: id, meld: Number(a1) }] }, true);
        return;
      }
      if (this.pending?.tiles.includes(id) || (this.atuOnRack && id === v.atu)) {
        toast(this.pending ? t("table.takeRow.need") : t("table.atu.pending"));
        this.render();
        return;
      }
      if (kind === "discard") return void this.send({ do: "discard", tile: id });
      if (kind === "meld") return void this.send({ do: "layoff", tile: id, meld: Number(a1) });
      if (kind === "joker") return void this.send({ do: "buy_joker", tile: id, meld: Number(a1) });
      this.render();
      return;
    }
    if (src.kind === "stock") {
      if (kind === "slot") this.dropHint = Number(a1);
      void this.send({ do: "draw" });
      return;
    }
    if (src.kind === "atu") {
      if (kind !== "slot" || v.atu === null || v.atu_taken_by !== null) return this.render();
      this.atuOnRack = true;
      rack.put(v.atu, Number(a1));
      this.rackChanged();
      this.render();
      return;
    }
    if (src.kind === "row") {
      if (kind !== "slot") return this.render();
      void this.confirmPreview(Number(a1), src.index);
    }
  }

  private async showPreview(index: number): Promise<void> {
    const v = this.view;
    if (!v) return;
    if (this.pending) return;
    if (this.preview?.index === index) {
      this.preview = null;
      this.render();
      return;
    }
    let tiles: number[];
    try {
      tiles = await this.host.queryRowPreview(index);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      toast(reason(e.code, e.message), "error", e.message);
      return;
    }
    if (!tiles.length) tiles = v.row.slice(index - v.row_offset);
    this.preview = { index, tiles };
    this.selection = null;
    this.setFocus("preview-take");
    this.render();
  }

  /** The previewed tiles come onto the rack as pending (not yet in the hand): the move is
   * sent only when the taken tile sits in a real formation. */
  private async confirmPreview(slot: number | null, index?: number): Promise<void> {
    const v = this.view;
    const rack = this.rack;
    if (!v || !rack || this.pending) return;
    if (index !== undefined && this.preview?.index !== index) {
      await this.showPreview(index);
    }
    const p = this.preview;
    if (!p) return;
    const taken = v.row[p.index - v.row_offset];
    if (taken === undefined) return;
    this.pending = { kind: this.family === "B" ? "discard" : "row", index: p.index, taken, tiles: p.tiles };
    this.preview = null;
    if (slot !== null) rack.put(taken, slot);
    for (const id of p.tiles) if (rack.slotOf(id) < 0) rack.slots[rack.freeSlot()] = id;
    this.setFocus(`slot:${rack.slotOf(taken)}`);
    this.rackChanged();
    this.render();
  }

  private cancelPending(): void {
    const v = this.view;
    this.pending = null;
    this.atuOnRack = false;
    this.preview = null;
    if (v) this.syncRack(v, v, null);
    this.render();
  }

  private meldSpec(x: { f: Formation; a: FormationAnswer }): Record<string, unknown> {
    return x.a.kind ? { kind: x.a.kind, tiles: x.f.tiles } : { tiles: x.f.tiles };
  }

  private async lay(): Promise<void> {
    const v = this.view;
    if (!v) return;
    const valid = this.validFormations();
    if (this.pending) {
      const p = this.pending;
      const melds = valid.filter((x) => !(this.atuOnRack && v.atu !== null && x.f.tiles.includes(v.atu))).map((x) => this.meldSpec(x));
      if (p.kind === "row") await this.send({ do: "take_row", index: p.index, melds }, true);
      else await this.send({ do: "take_discard", melds, layoffs: [] }, true);
      return;
    }
    if (!valid.length) return;
    const action: Record<string, unknown> = { do: "lay", melds: valid.map((x) => this.meldSpec(x)) };
    if (this.atuOnRack && v.atu !== null && valid.some((x) => x.f.tiles.includes(v.atu!))) action.atu = true;
    await this.send(action);
  }

  private async send(action: Record<string, unknown>, clearsPending = false): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.selection = null;
    try {
      await this.host.action(action);
      if (clearsPending) this.pending = null;
      if (action.atu) this.atuOnRack = false;
    } catch (err) {
      const e = err as { code?: string; message?: string };
      this.dropHint = null;
      toast(reason(e.code, e.message), "error", e.message);
    } finally {
      this.busy = false;
      if (this.view) this.syncRack(this.view, this.view, null);
      this.render();
    }
  }

  private sort(by: "suit" | "rank"): void {
    const v = this.view;
    const rack = this.rack;
    if (!v || !rack) return;
    const ids = rack.tiles();
    const minRows = this.family === "A" ? 2 : 3;
    rack.arrange(ids, by === "suit" ? suitKey : rankKey, by === "suit" ? SUIT_SPLITS : RANK_SPLITS, minRows);
    this.selection = null;
    this.rackChanged();
    this.render();
  }

  private onKey(e: KeyboardEvent): void {
    const el = e.target as HTMLElement;
    if (e.key === "Escape") {
      if (this.summaryOpen) {
        this.summaryOpen = false;
      } else {
        this.selection = null;
        this.preview = null;
      }
      this.render();
      return;
    }
    const slotAttr = el.dataset?.slot;
    if (slotAttr === undefined || !this.rack) return;
    const slot = Number(slotAttr);
    let next: number | null = null;
    if (e.key === "ArrowLeft") next = slot - 1;
    else if (e.key === "ArrowRight") next = slot + 1;
    else if (e.key === "ArrowUp") next = slot - COLS;
    else if (e.key === "ArrowDown") next = slot + COLS;
    else if (e.key === "Home") next = Math.floor(slot / COLS) * COLS;
    else if (e.key === "End") next = Math.floor(slot / COLS) * COLS + COLS - 1;
    if (next === null) return;
    e.preventDefault();
    if (next < 0 || next >= this.rack.slots.length) return;
    this.setFocus(`slot:${next}`);
    this.render();
  }

  // ---------------------------------------------------------------- drag

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    const act = this.actOf(e.target as HTMLElement);
    const dragEl = (e.target as HTMLElement).closest<HTMLElement>("[data-drag]");
    const src = dragEl && this.root.contains(dragEl) ? dragEl : null;
    const sel = src ? this.parseSource(src.dataset.drag!) : null;
    if (!act && !sel) return;
    const startX = e.clientX;
    const startY = e.clientY;
    let ghost: HTMLElement | null = null;
    let over: HTMLElement | null = null;
    let wandered = false;
    const pointerId = e.pointerId;

    const targetAt = (x: number, y: number): HTMLElement | null => {
      const under = document.elementFromPoint(x, y) as HTMLElement | null;
      const drop = under?.closest<HTMLElement>("[data-drop]") ?? null;
      return drop && this.root.contains(drop) ? drop : null;
    };
    const move = (ev: PointerEvent) => {
      if (ev.pointerId !== pointerId) return;
      if (!ghost) {
        if (Math.hypot(ev.clientX - startX, ev.clientY - startY) < 6) return;
        if (!sel || !src) {
          wandered = true; // not draggable: a scroll or a slip, not a tap
          return;
        }
        this.dragging = true;
        ghost = src.cloneNode(true) as HTMLElement;
        ghost.classList.add("ghost");
        ghost.removeAttribute("data-testid");
        const r = src.getBoundingClientRect();
        ghost.style.width = `${r.width}px`;
        ghost.style.height = `${r.height}px`;
        document.body.appendChild(ghost);
        src.classList.add("drag-src");
        if (sel.kind === "row") void this.dragPreview(sel.index);
      }
      ghost.style.transform = `translate(${ev.clientX - ghost.offsetWidth / 2}px, ${ev.clientY - ghost.offsetHeight / 2}px)`;
      const tgt = targetAt(ev.clientX, ev.clientY);
      if (tgt !== over) {
        over?.classList.remove("drop-hover");
        over = tgt;
        over?.classList.add("drop-hover");
      }
      ev.preventDefault();
    };
    const up = (ev: PointerEvent) => {
      if (ev.pointerId !== pointerId) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (!ghost || !sel || !src) {
        // A tap, handled here rather than on click.
        if (ev.type === "pointerup" && act && !wandered) {
          this.pointerTapUntil = Date.now() + 700;
          this.tap(act);
        }
        return;
      }
      ghost.remove();
      src.classList.remove("drag-src");
      over?.classList.remove("drop-hover");
      this.dragging = false;
      this.pointerTapUntil = Date.now() + 700;
      const tgt = ev.type === "pointerup" ? targetAt(ev.clientX, ev.clientY) : null;
      if (tgt?.dataset.drop) this.dropOn(sel, tgt.dataset.drop);
      else if (sel.kind === "row" && !this.pending) {
        // Dropped nowhere: keep the preview on screen.
        this.render();
      } else this.render();
      if (this.deferredRender) {
        this.deferredRender = false;
        this.render();
      }
    };
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }

  private async dragPreview(index: number): Promise<void> {
    if (this.preview?.index === index) return;
    try {
      const tiles = await this.host.queryRowPreview(index);
      const v = this.view;
      this.preview = { index, tiles: tiles.length ? tiles : v ? v.row.slice(index - v.row_offset) : [] };
      // Highlight in place without rebuilding the DOM under the finger.
      for (const el of this.root.querySelectorAll<HTMLElement>(".rtile")) {
        const i = Number(el.dataset.act!.split(":")[1]);
        el.classList.toggle("chosen", i === index);
        el.classList.toggle("come-along", i > index);
      }
      const hint = this.root.querySelector(".hint");
      if (hint) {
        const along = this.preview.tiles.slice(1);
        hint.textContent = along.length ? t("table.takeRow.preview", { tiles: along.map((x) => tileShort(this.family, x)).join(" ") }) : t("table.takeRow.only");
      }
    } catch {
      /* the drop will ask again */
    }
  }

  private parseSource(drag: string): Selection {
    const [kind, a1] = drag.split(":");
    if (kind === "rack") return this.rack?.slots[Number(a1)] !== null ? { kind: "rack", slot: Number(a1) } : null;
    if (kind === "row") return { kind: "row", index: Number(a1) };
    if (kind === "stock") return this.myTurn && this.view?.phase === "take" ? { kind: "stock" } : null;
    if (kind === "atu") return { kind: "atu" };
    return null;
  }
}
