// Quick reactions at the table: a fixed set of phrases and emoji (no
// free text), sent as `react`, shown beside the seat for a few seconds when the room's
// `reaction` arrives. A player can mute another player's reactions on this device. The
// server limits how often a seat may react (`reactions_limited`).

import { h } from "../dom";
import { t } from "../i18n";
import type { ReactMessage, SeatState } from "../protocol.gen";

export type Reaction = ReactMessage["reaction"];

/** The reactions offered, in the panel's order (each word or emoji is i18n's `react.<id>`). */
export const REACTIONS: readonly Reaction[] = [
  "hello",
  "good_luck",
  "well_played",
  "thanks",
  "sorry",
  "oops",
  "hurry",
  "wow",
  "thumbs_up",
  "laugh",
  "surprised",
  "sad",
];

const MUTED_KEY = "remi.muted";
const SHOW_MS = 4000;

export interface ReactionHost {
  send(reaction: Reaction): void;
  seats(): SeatState[];
  mySeat(): number | null;
}

export class Reactions {
  private button: HTMLButtonElement | null = null;
  private panel: HTMLElement | null = null;
  private bubbles = new Map<number, { el: HTMLElement; timer: number }>();
  private onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") this.close();
  };

  constructor(private host: ReactionHost) {}

  dispose(): void {
    this.close();
    for (const { el, timer } of this.bubbles.values()) {
      window.clearTimeout(timer);
      el.remove();
    }
    this.bubbles.clear();
  }

  /** The header's button that opens the panel (one element, moved into each render). */
  openButton(): HTMLButtonElement {
    if (!this.button) {
      this.button = h(
        "button",
        {
          type: "button",
          class: "icon react-btn",
          "data-testid": "react-open",
          "aria-haspopup": "dialog",
        },
        "☺",
      ) as HTMLButtonElement;
      this.button.addEventListener("click", () => (this.panel ? this.close() : this.open()));
    }
    this.button.setAttribute("aria-label", t("react.open"));
    this.button.title = t("react.open");
    return this.button;
  }

  muted(): Set<string> {
    try {
      const v: unknown = JSON.parse(localStorage.getItem(MUTED_KEY) ?? "[]");
      return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
    } catch {
      return new Set();
    }
  }

  private setMuted(id: string, on: boolean): void {
    const m = this.muted();
    if (on) m.add(id);
    else m.delete(id);
    try {
      localStorage.setItem(MUTED_KEY, JSON.stringify([...m]));
    } catch {
      /* not remembered */
    }
  }

  /** A `reaction` from the room: shown beside its seat unless that player is muted. */
  show(seat: number, reaction: Reaction): void {
    const who = this.host.seats().find((s) => s.seat === seat);
    if (who?.player_id && this.muted().has(who.player_id)) return;
    const anchor = document.querySelector<HTMLElement>(`[data-testid="seat-${seat}"]`);
    const old = this.bubbles.get(seat);
    if (old) {
      window.clearTimeout(old.timer);
      old.el.remove();
    }
    const name = who?.name ?? String(seat + 1);
    const el = h(
      "div",
      {
        class: "reaction-bubble",
        role: "status",
        "data-testid": `reaction-${seat}`,
        "data-reaction": reaction,
      },
      h("span", { class: "sr-only" }, `${name}: `),
      t(`react.${reaction}`),
    );
    document.body.append(el);
    if (anchor) {
      const r = anchor.getBoundingClientRect();
      el.style.left = `${Math.max(4, Math.min(window.innerWidth - el.offsetWidth - 4, r.left + r.width / 2 - el.offsetWidth / 2))}px`;
      el.style.top = `${Math.max(4, r.bottom + window.scrollY + 2)}px`;
    }
    this.bubbles.set(seat, { el, timer: window.setTimeout(() => this.drop(seat, el), SHOW_MS) });
  }

  private drop(seat: number, el: HTMLElement): void {
    el.remove();
    if (this.bubbles.get(seat)?.el === el) this.bubbles.delete(seat);
  }

  private open(): void {
    const grid = h("div", { class: "react-grid" });
    for (const r of REACTIONS) {
      const b = h(
        "button",
        { type: "button", class: "react-choice", "data-testid": `react-${r}` },
        t(`react.${r}`),
      );
      b.addEventListener("click", () => {
        this.host.send(r);
        this.close();
      });
      grid.append(b);
    }
    const me = this.host.mySeat();
    const others = this.host.seats().filter((s) => s.player_id && s.seat !== me);
    const muted = this.muted();
    const mutes = h("div", { class: "react-mutes" });
    for (const s of others) {
      const id = s.player_id!;
      const box = h("input", {
        type: "checkbox",
        "data-testid": `mute-${s.seat}`,
      }) as HTMLInputElement;
      box.checked = muted.has(id);
      box.addEventListener("change", () => this.setMuted(id, box.checked));
      mutes.append(
        h(
          "label",
          { class: "react-mute" },
          box,
          " ",
          t("react.mute", { name: s.name ?? String(s.seat + 1) }),
        ),
      );
    }
    this.panel = h(
      "div",
      {
        class: "react-panel",
        role: "dialog",
        "aria-label": t("react.open"),
        "data-testid": "react-panel",
      },
      grid,
      others.length ? mutes : null,
    );
    document.body.append(this.panel);
    const b = this.button?.getBoundingClientRect();
    if (b) {
      // Under the button, its right edge at the button's, never past either side.
      const w = this.panel.offsetWidth;
      const left = Math.max(4, Math.min(b.right - w, document.documentElement.clientWidth - w - 4));
      this.panel.style.top = `${b.bottom + window.scrollY + 4}px`;
      this.panel.style.left = `${left}px`;
    }
    document.addEventListener("keydown", this.onKey);
    this.panel.querySelector<HTMLElement>("button")?.focus();
  }

  close(): void {
    this.panel?.remove();
    this.panel = null;
    document.removeEventListener("keydown", this.onKey);
  }
}
