// The coach on the page: a finished round reviewed for one seat (server/bots/coach.py,
// run in the practice worker under Pyodide: a review costs the server nothing), its
// progress, the decisions that clearly cost points as they are valued, marks on the
// replay's timeline and a jump to each; and the hint of the offline practice. The
// review reads only what the seat could see at each decision (Python rebuilds its view);
// this page shows, for a decision, that seat's own hand and the row it saw, nothing of
// the other hands. A round still in play is never reviewed (the replay page exists only
// for finished rounds; Python refuses one in play).

import type * as api from "./api";
import type { CoachDecision, CoachFromWorker, CoachRound, CoachToWorker } from "./coach-worker";
import { clear, h } from "./dom";
import { getLang, t } from "./i18n";
import { practiceWorker } from "./practice/local";
import { tileEl, tileShort, type Faces } from "./tiles";
import "./coach.css";

/** Seconds of play-outs per decision (server/bots/coach.py CoachSettings.budget);
 * localStorage `remi.coach.budget` changes it on this device. */
export function coachBudget(): number {
  const v = Number(localStorage.getItem("remi.coach.budget") ?? "");
  return Number.isFinite(v) && v > 0 ? v : 2;
}

let nextId = 1;

interface RunHandlers {
  start?(total: number, round: CoachRound): void;
  decision(d: CoachDecision, done: number, total: number): void;
  end(stopped: boolean): void;
  failed(code: string, message: string): void;
}

/** A review running in the worker: `stop()` ends it after the decision being valued. */
export class CoachRun {
  readonly id = nextId++;
  private worker: Worker | null = null;
  private over = false;
  private on = (ev: MessageEvent<CoachFromWorker>) => this.message(ev.data);

  constructor(private handlers: RunHandlers) {}

  /** Reviews `round`, or with `round: null` the practice match's finished round `number`
   * (0: the last one), kept in the worker. */
  async start(
    round: CoachRound | null,
    seat: number,
    budget = coachBudget(),
    number = 0,
  ): Promise<void> {
    const w = await practiceWorker();
    this.worker = w;
    w.addEventListener("message", this.on);
    w.postMessage({
      kind: "coach",
      id: this.id,
      round,
      number,
      seat,
      budget,
    } satisfies CoachToWorker);
  }

  stop(): void {
    if (this.over) return;
    this.worker?.postMessage({ kind: "coach_stop", id: this.id } satisfies CoachToWorker);
  }

  private message(m: CoachFromWorker): void {
    if (!("id" in m) || m.id !== this.id || this.over) return;
    if (m.kind === "coach_start") this.handlers.start?.(m.total, m.round);
    else if (m.kind === "coach_decision") this.handlers.decision(m.decision, m.done, m.total);
    else if (m.kind === "coach_end" || m.kind === "coach_failed") {
      this.over = true;
      this.worker?.removeEventListener("message", this.on);
      if (m.kind === "coach_end") this.handlers.end(m.stopped);
      else this.handlers.failed(m.code, m.message);
    }
  }
}

/** Python's words in the page's language, tiles written as the page writes them. */
function words(
  text: { en?: string; ro?: string },
  marked: { en?: string; ro?: string } | undefined,
  faces: Faces,
): string {
  const m = getLang() === "en" ? marked?.en : marked?.ro;
  if (m) return m.replace(/\{t:(\d+)\}/g, (_, id: string) => tileShort(faces, Number(id)));
  return (getLang() === "en" ? text.en : text.ro) ?? "";
}

/** The flag's sentence. */
function sentence(d: CoachDecision, faces: Faces): string {
  return words(d.text, d.marked, faces);
}

/** The review panel: seat, start/stop, progress, the flagged decisions. `jump(d)` shows a
 * decision; `changed()` after each new flag (the timeline's marks). */
class ReviewPanel {
  readonly el = h("section", {
    class: "card coach",
    "data-testid": "coach",
    "aria-live": "polite",
  });
  flags: CoachDecision[] = [];
  private run: CoachRun | null = null;
  private status = "";
  private done = 0;
  private total = 0;
  private finished = false;

  constructor(
    private opts: {
      faces: () => Faces;
      seats: { seat: number; name: string }[];
      seat: number;
      /** The round; null: the practice match's finished round `number` (0: the last). */
      round: () => Promise<CoachRound | null>;
      number?: number;
      jump: (d: CoachDecision) => void;
      changed: () => void;
      showPosition: boolean;
    },
  ) {
    this.draw();
  }

  get running(): boolean {
    return this.run !== null;
  }

  stop(): void {
    this.run?.stop();
  }

  private async begin(): Promise<void> {
    if (this.run) return;
    this.flags = [];
    this.done = 0;
    this.total = 0;
    this.finished = false;
    this.status = t("coach.loading");
    const run = new CoachRun({
      start: (total) => {
        this.total = total;
        this.status = t("coach.progress", { done: 0, total });
        this.draw();
      },
      decision: (d, done, total) => {
        this.done = done;
        this.total = total;
        this.status = t("coach.progress", { done, total });
        if (d.flagged) {
          this.flags.push(d);
          this.opts.changed();
        }
        this.draw();
      },
      end: (stopped) => {
        this.run = null;
        this.finished = true;
        this.status = stopped
          ? t("coach.stopped", { done: this.done, total: this.total })
          : this.flags.length
            ? t("coach.done", { n: this.flags.length })
            : t("coach.none");
        this.draw();
      },
      failed: (code, message) => {
        this.run = null;
        this.status =
          code === "round_not_finished"
            ? t("replay.notFinished")
            : code === "no_round"
              ? t("coach.noRound")
              : t("coach.failed", { message });
        this.draw();
      },
    });
    this.run = run;
    this.draw();
    try {
      await run.start(await this.opts.round(), this.opts.seat, coachBudget(), this.opts.number);
    } catch (err) {
      this.run = null;
      this.status = t("coach.failed", { message: String(err) });
      this.draw();
    }
  }

  draw(): void {
    const el = this.el;
    clear(el);
    const seatSelect =
      this.opts.seats.length > 1
        ? h(
            "label",
            { class: "coach-seat" },
            t("coach.seat"),
            " ",
            h(
              "select",
              {
                "data-testid": "coach-seat",
                disabled: this.running,
                onchange: (e: Event) => {
                  this.opts.seat = Number((e.target as HTMLSelectElement).value);
                },
              },
              this.opts.seats.map((s) =>
                h("option", { value: String(s.seat), selected: s.seat === this.opts.seat }, s.name),
              ),
            ),
          )
        : null;
    const progress = this.total
      ? h("progress", {
          class: "coach-progress",
          max: this.total,
          value: this.done,
          "data-testid": "coach-progress",
        })
      : null;
    el.append(
      h("h2", { hidden: this.opts.showPosition }, t("coach.title")), // the practice's dialog has its own
      h("p", { class: "muted small-print" }, t("coach.about")),
      h(
        "div",
        { class: "row coach-controls" },
        seatSelect,
        this.running
          ? h(
              "button",
              { type: "button", "data-testid": "coach-stop", onclick: () => this.stop() },
              t("coach.stop"),
            )
          : h(
              "button",
              {
                type: "button",
                class: "primary",
                "data-testid": "coach-start",
                onclick: () => void this.begin(),
              },
              this.finished ? t("coach.again") : t("coach.start"),
            ),
        progress,
        h("span", { class: "muted", "data-testid": "coach-status" }, this.status),
      ),
    );
    if (this.flags.length) {
      el.append(
        h(
          "ol",
          { class: "coach-flags", "data-testid": "coach-flags" },
          this.flags.map((d) =>
            h(
              "li",
              {
                class: "coach-flag",
                "data-testid": `coach-flag-${d.index}`,
                "data-step": d.index + 1,
              },
              h(
                "p",
                null,
                h("strong", null, t("coach.move", { n: d.index + 1 })),
                " ",
                sentence(d, this.opts.faces()),
              ),
              h(
                "p",
                { class: "muted small-print" },
                t("coach.points", {
                  cost: Math.round(d.cost),
                  se: Math.round(d.se),
                  worlds: d.worlds,
                }),
              ),
              this.opts.showPosition ? position(d, this.opts.faces()) : null,
              h(
                "button",
                {
                  type: "button",
                  "data-testid": `coach-go-${d.index}`,
                  onclick: () => this.opts.jump(d),
                },
                t("coach.go"),
              ),
            ),
          ),
        ),
      );
    }
  }
}

/** The seat's own tiles and the row it saw at a decision. */
function position(d: CoachDecision, faces: Faces): HTMLElement {
  return h(
    "div",
    { class: "coach-position" },
    h(
      "div",
      null,
      h("span", { class: "muted" }, t("coach.hand")),
      " ",
      h(
        "span",
        { class: "tiles-line" },
        d.hand.map((x) => tileEl(faces, x, { small: true })),
      ),
    ),
    h(
      "div",
      null,
      h("span", { class: "muted" }, t("table.row")),
      " ",
      h(
        "span",
        { class: "tiles-line" },
        d.row.length ? d.row.map((x) => tileEl(faces, x, { small: true })) : "—",
      ),
    ),
  );
}

/** A timeline mark's size (coach.css, .coach-mark). */
const MARK_PX = 12;

/** Marks of flagged decisions along a timeline of `last` steps; a click jumps there. */
function marksEl(
  el: HTMLElement,
  flags: CoachDecision[],
  last: number,
  current: number,
  jump: (d: CoachDecision) => void,
  faces: Faces,
): void {
  clear(el);
  el.hidden = flags.length === 0;
  // Marks closer than a mark's width go on lanes below one another, so that each one can
  // be tapped (none covers another).
  const width = el.clientWidth || 320;
  const laneEnds: number[] = [];
  for (const d of [...flags].sort((a, b) => a.index - b.index)) {
    const step = d.index + 1;
    const x = (width * step) / Math.max(1, last);
    let lane = laneEnds.findIndex((end) => x >= end);
    if (lane < 0) lane = laneEnds.push(0) - 1;
    laneEnds[lane] = x + MARK_PX + 2;
    el.style.height = `${laneEnds.length * (MARK_PX + 2)}px`;
    el.append(
      h("button", {
        type: "button",
        class: `coach-mark${step === current ? " here" : ""}`,
        "data-testid": `coach-mark-${d.index}`,
        "data-step": step,
        style: { left: `${(100 * step) / Math.max(1, last)}%`, top: `${lane * (MARK_PX + 2)}px` },
        title: sentence(d, faces),
        "aria-label": `${t("coach.move", { n: step })} ${sentence(d, faces)}`,
        onclick: () => jump(d),
      }),
    );
  }
}

/** The coach on the replay page (replay.ts): a panel and the timeline's marks, both kept
 * across the page's redraws. */
export class ReplayCoach {
  private panel: ReviewPanel;
  private marks = h("div", { class: "coach-marks", "data-testid": "coach-marks", hidden: true });
  private last = 0;
  private current = 0;

  constructor(
    data: api.Replay,
    record: () => Promise<api.RoundRecord>,
    mySeat: number,
    names: (seat: number) => string,
    private faces: () => Faces,
    private go: (step: number) => void,
  ) {
    this.last = data.steps.length - 1;
    this.panel = new ReviewPanel({
      faces,
      seats: Array.from({ length: data.players }, (_, seat) => ({ seat, name: names(seat) })),
      seat: mySeat,
      round: async () => {
        const r = await record();
        return {
          variant: data.variant,
          players: data.players,
          deal: r.deal,
          options: data.options,
          log: r.actions,
        };
      },
      jump: (d) => this.go(d.index + 1),
      changed: () => this.drawMarks(),
      showPosition: false,
    });
  }

  /** The timeline's marks for step `step` (called at every redraw). */
  marksFor(step: number): HTMLElement {
    this.current = step;
    this.drawMarks();
    return this.marks;
  }

  get element(): HTMLElement {
    return this.panel.el;
  }

  dispose(): void {
    this.panel.stop();
  }

  private drawMarks(): void {
    marksEl(
      this.marks,
      this.panel.flags,
      this.last,
      this.current,
      (d) => this.go(d.index + 1),
      this.faces(),
    );
  }
}

// ------------------------------------------------------------------ the practice

/** The practice table's coach buttons (room.ts, offline practice only, never online):
 * the hint on the player's turn, the review of the round once it is over (the score
 * sheet has one per finished round: `practiceReviewButton`). */
export function practiceCoachButtons(
  view: () => import("./types").SeatView | null,
  faces: () => Faces,
  finished: () => number,
): HTMLElement[] {
  const v = view();
  const review = (seat: number) =>
    h(
      "button",
      {
        type: "button",
        class: "coach-review-btn",
        "data-testid": "coach-review",
        "aria-label": t("coach.review"),
        title: t("coach.review"),
        onclick: () => openPracticeReview(seat, faces()),
      },
      "🔍",
      h("span", { class: "coach-btn-label" }, ` ${t("coach.review")}`),
    );
  // Reloaded between two rounds (no round on the table yet): the last finished one.
  if (!v) return finished() > 0 ? [review(0)] : [];
  if (v.seat === null) return [];
  const mine = !v.over && v.turn === v.seat;
  const out: HTMLElement[] = [];
  if (mine) {
    out.push(
      h(
        "button",
        {
          type: "button",
          class: "coach-hint-btn",
          "data-testid": "coach-hint",
          title: t("coach.hint.title"),
          "aria-label": t("coach.hint"),
          onclick: () => void showHint(v, faces()),
        },
        "💡",
        h("span", { class: "coach-btn-label" }, ` ${t("coach.hint")}`),
      ),
    );
  }
  if (v.over) out.push(review(v.seat));
  return out;
}

/** The practice score sheet's review of finished round `number` (room.ts): the same
 * review as the table's, of that round, kept with the match (a reload loses none);
 * `opening()` first (the score sheet makes way). With `round`, that round as the history
 * of finished matches keeps it (practice/box.ts), not the match in the worker. */
export function practiceReviewButton(
  number: number,
  seat: number,
  faces: Faces,
  opening: () => void = () => undefined,
  round: CoachRound | null = null,
): HTMLElement {
  const label = t("coach.reviewRound", { n: number });
  return h(
    "button",
    {
      type: "button",
      class: "small coach-round-btn",
      "data-testid": `scores-review-${number}`,
      "aria-label": label,
      title: label,
      onclick: () => {
        opening();
        openPracticeReview(seat, faces, number, round);
      },
    },
    "🔍",
  );
}

function overlay(
  id: string,
  title: string,
  body: HTMLElement,
  onClose: () => void = () => undefined,
): HTMLElement {
  document.getElementById(id)?.remove();
  const close = () => {
    box.remove();
    onClose();
  };
  const box = h(
    "div",
    { id, class: "coach-overlay", role: "dialog", "aria-label": title, "data-testid": id },
    h(
      "div",
      { class: "card coach-dialog" },
      h(
        "div",
        { class: "row" },
        h("h2", null, title),
        h("span", { class: "spacer" }),
        h(
          "button",
          { type: "button", "data-testid": `${id}-close`, onclick: close },
          t("coach.close"),
        ),
      ),
      body,
    ),
  );
  document.body.append(box);
  return box;
}

async function showHint(view: import("./types").SeatView, faces: Faces): Promise<void> {
  const text = h("p", { "data-testid": "coach-hint-text" }, t("coach.thinking"));
  overlay("coach-hint-box", t("coach.hint.title"), h("div", null, text));
  const w = await practiceWorker();
  const id = nextId++;
  const on = (ev: MessageEvent<CoachFromWorker>) => {
    const m = ev.data;
    if (!("id" in m) || m.id !== id) return;
    w.removeEventListener("message", on);
    if (m.kind === "coach_hint") text.textContent = words(m.text, m.marked, faces);
    else if (m.kind === "coach_failed")
      text.textContent = t("coach.failed", { message: m.message });
  };
  w.addEventListener("message", on);
  w.postMessage({ kind: "coach_hint", id, view } satisfies CoachToWorker);
}

/** The review dialog of the practice match's finished round `number` (0: the last one),
 * or of `round` (a finished match's, from the history). */
function openPracticeReview(
  seat: number,
  faces: Faces,
  number = 0,
  round: CoachRound | null = null,
): void {
  const marks = h("div", { class: "coach-marks", "data-testid": "coach-marks", hidden: true });
  let last = 1;
  let shown: CoachDecision | null = null;
  const jump = (d: CoachDecision) => {
    shown = d;
    marksEl(marks, panel.flags, last, d.index + 1, jump, faces);
    document
      .querySelector(`[data-testid="coach-flag-${d.index}"]`)
      ?.scrollIntoView({ block: "nearest" });
  };
  const panel = new ReviewPanel({
    faces: () => faces,
    seats: [],
    seat,
    round: async () => round, // null: the practice match's round, kept in the worker
    number,
    jump,
    changed: () => marksEl(marks, panel.flags, last, shown ? shown.index + 1 : -1, jump, faces),
    showPosition: true,
  });
  const body = h("div", null, h("div", { class: "coach-timeline" }, marks), panel.el);
  const title = number
    ? `${t("coach.title")} · ${t("coach.reviewRound", { n: number })}`
    : t("coach.title");
  overlay("coach-review-box", title, body, () => panel.stop());
  // The timeline's length: the round's log, known once the worker has the round.
  const w = practiceWorker();
  void w.then((worker) => {
    const on = (ev: MessageEvent<CoachFromWorker>) => {
      if (ev.data.kind === "coach_start") {
        last = Math.max(1, ev.data.round.log.length);
        worker.removeEventListener("message", on);
      }
    };
    worker.addEventListener("message", on);
  });
}
