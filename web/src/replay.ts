// The replay viewer (#/replay/<room>/<round>[/<step>]): a finished round step by step, from
// the server's replay (GET /api/rooms/{id}/rounds/{n}/replay): every hand revealed, the
// stock in order (top first), the atu, the row and the melds; each step's move in words
// (table/movelog.ts, the move log's own wording); first, previous, next, last, and play at
// a speed; a link to share (a private room's rounds open for its players only), the round
// as a scenario file (../shared/SCENARIOS.md) and the check of its deal (verify.ts). The
// page only draws what the server sent: no rule is applied here.

import * as api from "./api";
import { loadCatalogue, variantFacts, variantName } from "./catalogue";
import { clear, h, nameEl } from "./dom";
import { failureText, reason, t, tParts } from "./i18n";
import type { App } from "./main";
import { describe, describeText } from "./table/movelog";
import { ReplayCoach } from "./coach";
import { meldLabel, tileEl, type Faces } from "./tiles";

/** Steps a second at 1×; the speeds offered. */
const BASE_STEPS_PER_SECOND = 1;
export const SPEEDS = [0.5, 1, 2, 4, 8];

export function replayHash(room: string, round: number, step?: number): string {
  return `#/replay/${encodeURIComponent(room)}/${round}${step ? `/${step}` : ""}`;
}

export function verifyHash(room: string, round: number): string {
  return `#/verify/${encodeURIComponent(room)}/${round}`;
}

/** A seat's name in a finished round: the player's, else "bot N" or "seat N". */
export function roundSeatName(seats: api.Replay["seats"], seat: number): string {
  const s = seats.find((x) => x.seat === seat);
  if (s?.name) return s.name;
  if (s?.bot_level) return `${t("table.bot")} ${seat + 1}`;
  return t("room.seat", { n: seat + 1 });
}

export class ReplayPage {
  private data: api.Replay | null = null;
  private step = 0;
  private speed = 1;
  private timer = 0;
  private disposed = false;
  private coach: ReplayCoach | null = null; // the round's review (coach.ts)
  private onKey = (e: KeyboardEvent) => this.key(e);

  constructor(
    private app: App,
    private roomId: string,
    private round: number,
    private startStep: number,
  ) {}

  start(): void {
    document.addEventListener("keydown", this.onKey);
    this.renderShell(h("p", { class: "card muted" }, t("common.loading")));
    void this.load();
  }

  dispose(): void {
    this.disposed = true;
    this.stop();
    this.coach?.dispose();
    document.removeEventListener("keydown", this.onKey);
  }

  relabel(): void {
    if (this.data) this.render();
    else this.renderShell(h("p", { class: "card muted" }, t("common.loading")));
  }

  private async load(): Promise<void> {
    try {
      const [data] = await Promise.all([api.replay(this.roomId, this.round), loadCatalogue()]);
      if (this.disposed) return;
      this.data = data;
      this.step = Math.max(0, Math.min(this.startStep, data.steps.length - 1));
      const mine =
        data.seats.find((x) => x.name !== null && x.name === this.app.player?.display_name) ??
        data.seats.find((x) => x.name !== null);
      this.coach = new ReplayCoach(
        data,
        () => api.roundRecord(this.roomId, this.round),
        mine?.seat ?? 0,
        (seat) => roundSeatName(data.seats, seat),
        () => variantFacts(data.variant)?.faces ?? "cards",
        (step) => (this.stop(), this.go(step)),
      );
      this.render();
    } catch (err) {
      if (!this.disposed) this.renderShell(roundError(err));
    }
  }

  private get last(): number {
    return (this.data?.steps.length ?? 1) - 1;
  }

  private go(step: number): void {
    const next = Math.max(0, Math.min(step, this.last));
    if (next === this.step && this.data) return;
    this.step = next;
    if (this.step >= this.last) this.stop();
    this.render();
  }

  private playing(): boolean {
    return this.timer !== 0;
  }

  private play(): void {
    if (this.playing()) return;
    if (this.step >= this.last) this.step = 0;
    this.schedule();
    this.render();
  }

  private schedule(): void {
    window.clearInterval(this.timer);
    this.timer = window.setInterval(
      () => {
        if (this.step >= this.last) this.stop();
        else this.step += 1;
        this.render();
      },
      1000 / (BASE_STEPS_PER_SECOND * this.speed),
    );
  }

  private stop(): void {
    window.clearInterval(this.timer);
    this.timer = 0;
  }

  private key(e: KeyboardEvent): void {
    const target = e.target as HTMLElement | null;
    if (
      !this.data ||
      e.altKey ||
      e.ctrlKey ||
      e.metaKey ||
      target?.closest("input, select, textarea")
    )
      return;
    const moves: Record<string, () => void> = {
      ArrowLeft: () => this.go(this.step - 1),
      ArrowRight: () => this.go(this.step + 1),
      Home: () => this.go(0),
      End: () => this.go(this.last),
    };
    const fn = moves[e.key];
    if (!fn) return;
    e.preventDefault();
    this.stop();
    fn();
  }

  // ------------------------------------------------------------ drawing

  private renderShell(body: HTMLElement): void {
    const root = this.app.root;
    clear(root);
    root.append(h("main", { class: "lobby replay", "data-testid": "replay" }, this.header(), body));
  }

  private header(): HTMLElement {
    const title = this.data
      ? t("replay.title", { variant: variantName(this.data.variant), n: this.round })
      : t("replay.title.short", { n: this.round });
    return h(
      "header",
      { class: "topbar" },
      h(
        "a",
        {
          class: "icon back button-like",
          href: "#/",
          "aria-label": t("common.back"),
          title: t("common.back"),
        },
        "←",
      ),
      h("h1", null, title),
      h("span", { class: "spacer" }),
      this.app.langButton(),
    );
  }

  private render(): void {
    const d = this.data;
    if (!d || this.disposed) return;
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.testid ?? null;
    const faces: Faces = variantFacts(d.variant)?.faces ?? "cards";
    const s = d.steps[this.step];
    const name = (seat: number) => roundSeatName(d.seats, seat);
    const root = this.app.root;
    clear(root);
    root.append(
      h(
        "main",
        { class: `lobby replay faces-${faces}`, "data-testid": "replay", "data-step": this.step },
        this.header(),
        h(
          "div",
          { class: "replay-sticky" },
          this.controls(),
          this.coach?.marksFor(this.step),
          this.moveLine(d, s, faces, name),
        ),
        h(
          "section",
          { class: "card replay-seats", "aria-label": t("replay.hands") },
          h("h2", null, t("replay.hands")),
          this.hands(d, s, faces, name),
        ),
        this.middle(d, s, faces, name),
        this.step === this.last && d.result ? this.result(d, name) : null,
        this.coach?.element,
        this.links(d),
      ),
    );
    if (focused)
      root.querySelector<HTMLElement>(`[data-testid="${focused}"]`)?.focus({ preventScroll: true });
  }

  private controls(): HTMLElement {
    const button = (id: string, label: string, symbol: string, fn: () => void, disabled: boolean) =>
      h(
        "button",
        {
          type: "button",
          class: "replay-btn",
          "data-testid": `replay-${id}`,
          "aria-label": label,
          title: label,
          disabled,
          onclick: fn,
        },
        symbol,
      );
    const playing = this.playing();
    const speed = h(
      "select",
      {
        "data-testid": "replay-speed",
        "aria-label": t("replay.speed"),
        onchange: (e: Event) => {
          this.speed = Number((e.target as HTMLSelectElement).value) || 1;
          if (this.playing()) this.schedule();
        },
      },
      SPEEDS.map((x) => h("option", { value: String(x), selected: x === this.speed }, `${x}×`)),
    );
    const slider = h("input", {
      type: "range",
      min: 0,
      max: this.last,
      value: this.step,
      class: "replay-slider",
      "data-testid": "replay-slider",
      "aria-label": t("replay.step.aria"),
      oninput: (e: Event) => {
        this.stop();
        this.go(Number((e.target as HTMLInputElement).value));
      },
    });
    return h(
      "section",
      { class: "card replay-controls", "aria-label": t("replay.controls") },
      h(
        "div",
        { class: "row" },
        button("first", t("replay.first"), "|◀", () => (this.stop(), this.go(0)), this.step === 0),
        button(
          "prev",
          t("replay.prev"),
          "◀",
          () => (this.stop(), this.go(this.step - 1)),
          this.step === 0,
        ),
        button(
          "next",
          t("replay.next"),
          "▶",
          () => (this.stop(), this.go(this.step + 1)),
          this.step >= this.last,
        ),
        button(
          "last",
          t("replay.last"),
          "▶|",
          () => (this.stop(), this.go(this.last)),
          this.step >= this.last,
        ),
        h(
          "button",
          {
            type: "button",
            class: "replay-play primary",
            "data-testid": "replay-play",
            "aria-label": playing ? t("replay.pause") : t("replay.play"),
            onclick: () => (playing ? (this.stop(), this.render()) : this.play()),
          },
          playing ? `❚❚ ${t("replay.pause")}` : `▶ ${t("replay.play")}`,
        ),
        h("label", { class: "replay-speed" }, t("replay.speed"), " ", speed),
        h(
          "span",
          { class: "replay-count", "data-testid": "replay-step" },
          t("replay.step", { n: this.step, total: this.last }),
        ),
      ),
      slider,
    );
  }

  /** The step's move in words, as the table's move log says it. */
  private moveLine(
    d: api.Replay,
    s: api.ReplayStep,
    faces: Faces,
    name: (seat: number) => string,
  ): HTMLElement {
    let key: string;
    let params: Record<string, string | number | HTMLElement>;
    let plain: string;
    if (!s.event) {
      key = "move.roundStart";
      params = { n: d.round, name: nameEl(name(d.first)) };
      plain = t(key, { n: d.round, name: name(d.first) });
    } else {
      const humans = new Set(d.seats.filter((x) => x.name !== null).map((x) => x.seat));
      const described = describe(s.event, { faces, humanSeats: humans });
      key = described?.key ?? "replay.move.unknown";
      params = {
        ...(described?.params ?? {}),
        ...(described?.seat !== null && described?.seat !== undefined
          ? { name: nameEl(name(described.seat)) }
          : {}),
      };
      plain = described ? describeText(described, name) : t(key);
    }
    const seat = s.event && typeof s.event.seat === "number" ? s.event.seat : null;
    return h(
      "section",
      { class: "card replay-move", "aria-live": "polite" },
      h(
        "span",
        { class: "muted" },
        this.step === 0 ? t("replay.deal") : t("replay.move.n", { n: this.step }),
      ),
      " ",
      seat !== null
        ? h("span", { class: `owner-dot owner${seat}`, "aria-hidden": "true" }, String(seat + 1))
        : null,
      h("strong", { "data-testid": "replay-move", title: plain }, tParts(key, params)),
    );
  }

  private hands(
    d: api.Replay,
    s: api.ReplayStep,
    faces: Faces,
    name: (seat: number) => string,
  ): HTMLElement {
    const list = h("ol", { class: "replay-hands" });
    const over = s.phase === "over";
    for (let seat = 0; seat < d.players; seat++) {
      const turn = !over && s.turn === seat;
      const hand = s.hands[seat] ?? [];
      list.append(
        h(
          "li",
          {
            class: `replay-hand${turn ? " turn" : ""}`,
            "data-testid": `replay-hand-${seat}`,
            "data-tiles": hand.join(" "),
            "aria-current": turn ? "true" : null,
          },
          h(
            "div",
            { class: "replay-hand-head" },
            h("span", { class: `owner-dot owner${seat}`, "aria-hidden": "true" }, String(seat + 1)),
            nameEl(name(seat), "nm"),
            h("span", { class: "muted" }, t("table.tiles", { n: hand.length })),
            s.opened[seat] ? h("span", { class: "badge" }, t("replay.opened")) : null,
            turn ? h("span", { class: "badge turn-badge" }, t("replay.turn")) : null,
          ),
          h(
            "div",
            { class: "tiles-line" },
            hand.map((x) => tileEl(faces, x, { small: true })),
          ),
        ),
      );
    }
    return list;
  }

  private middle(
    d: api.Replay,
    s: api.ReplayStep,
    faces: Faces,
    name: (seat: number) => string,
  ): HTMLElement {
    const consumed = new Set(s.consumed);
    const atu =
      variantFacts(d.variant)?.atu && s.atu !== null
        ? h(
            "div",
            { class: "replay-atu", "data-testid": "replay-atu", "data-tile": s.atu },
            h("h3", null, t("table.atu")),
            tileEl(faces, s.atu, { small: true }),
            s.atu_taken_by !== null
              ? h(
                  "span",
                  { class: "muted" },
                  " ",
                  tParts("table.atu.taken", { name: nameEl(name(s.atu_taken_by)) }),
                )
              : null,
          )
        : null;
    const stock = h(
      "div",
      { class: "replay-stock", "data-testid": "replay-stock", "data-tiles": s.stock.join(" ") },
      h("h3", null, t("replay.stock", { n: s.stock.length })),
      h("p", { class: "muted small-print" }, t("replay.stock.hint")),
      h(
        "div",
        { class: "tiles-line" },
        s.stock.length
          ? s.stock.map((x) => tileEl(faces, x, { small: true }))
          : h("span", { class: "muted" }, "—"),
      ),
    );
    const row = h(
      "div",
      { class: "replay-row", "data-testid": "replay-row", "data-tiles": s.row.join(" ") },
      h("h3", null, t("table.row")),
      h(
        "div",
        { class: "tiles-line" },
        s.row.length
          ? s.row.map((x, i) =>
              tileEl(faces, x, {
                small: true,
                owner: s.row_by[i - (s.row.length - s.row_by.length)] ?? null,
              }),
            )
          : h("span", { class: "muted" }, t("table.row.empty")),
      ),
    );
    const melds = h(
      "div",
      { class: "replay-melds", "data-testid": "replay-melds" },
      h("h3", null, t("table.melds")),
      s.table.length
        ? h(
            "ol",
            { class: "replay-meld-list" },
            s.table.map((m, k) =>
              h(
                "li",
                {
                  class: `meld kind-${m.kind}`,
                  "aria-label": meldLabel(faces, k + 1, m.kind, m.tiles, m.stands_for),
                },
                m.tiles.map((x, i) =>
                  tileEl(faces, x, {
                    small: true,
                    consumed: consumed.has(x),
                    owner: m.owners[i],
                    stands: m.stands_for?.[i] ?? null,
                  }),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, t("table.melds.empty")),
    );
    return h(
      "section",
      { class: "card replay-middle" },
      h("div", { class: "replay-top" }, atu, stock),
      row,
      melds,
    );
  }

  private result(d: api.Replay, name: (seat: number) => string): HTMLElement {
    const res = d.result!;
    return h(
      "section",
      { class: "card replay-result", "data-testid": "replay-result" },
      h("h2", null, t("summary.title")),
      h(
        "p",
        null,
        res.out !== null
          ? tParts("summary.out", { name: nameEl(name(res.out)) })
          : t("summary.stock"),
      ),
      h(
        "ol",
        { class: "replay-scores" },
        res.scores.map((x, seat) =>
          h(
            "li",
            { "data-testid": `replay-score-${seat}` },
            nameEl(name(seat)),
            ": ",
            h("strong", { class: x < 0 ? "neg" : "pos" }, x > 0 ? `+${x}` : String(x)),
          ),
        ),
      ),
    );
  }

  private links(d: api.Replay): HTMLElement {
    const link = `${location.origin}${location.pathname}${replayHash(d.room_id, d.round)}`;
    const input = h("input", {
      readonly: true,
      value: link,
      "data-testid": "replay-link",
      "aria-label": t("replay.share"),
    });
    return h(
      "section",
      { class: "card replay-links" },
      h("h2", null, t("replay.share")),
      h("p", { class: "muted" }, t("replay.share.hint")),
      h(
        "div",
        { class: "row" },
        input,
        h(
          "button",
          {
            type: "button",
            "data-testid": "replay-copy",
            onclick: async (e: Event) => {
              try {
                await navigator.clipboard.writeText(link);
                (e.target as HTMLElement).textContent = t("common.copied");
              } catch {
                input.select();
              }
            },
          },
          t("common.copy"),
        ),
      ),
      h(
        "div",
        { class: "row replay-actions" },
        h(
          "a",
          {
            class: "button-like",
            href: api.scenarioUrl(d.room_id, d.round),
            download: `remi-${d.room_id}-round-${d.round}.json`,
            "data-testid": "replay-download",
          },
          t("replay.download"),
        ),
        h(
          "a",
          {
            class: "button-like",
            href: verifyHash(d.room_id, d.round),
            "data-testid": "replay-verify",
          },
          t("replay.verify"),
        ),
      ),
      h("p", { class: "muted small-print" }, t("replay.download.hint")),
    );
  }
}

/** A finished round's page could not load: why, in words, and the way back. */
export function roundError(err: unknown): HTMLElement {
  let text = failureText(err);
  if (err instanceof api.ApiError) {
    if (err.code === "round_not_finished") text = t("replay.notFinished");
    else if (err.code === "round_not_found") text = t("replay.notFound");
    else if (err.status === 404) text = t("room.notfound");
    else if (err.status === 0) text = t("offline.text");
    else text = reason(err.code, err.message);
  }
  return h(
    "section",
    { class: "card" },
    h("p", { "data-testid": "round-error" }, text),
    h("a", { href: "#/" }, t("common.back")),
  );
}
