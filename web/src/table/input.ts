// The table's input: taps, keys and drags on the DOM that render.ts drew, turned into the
// reducer's events (state.ts). A tap is an element's `data-act`; a drag goes from a
// `data-drag` source to a `data-drop` target. Pointer taps are handled on pointerup, so a
// re-render between press and release (a bot moved meanwhile) never loses them.

import { myTurn, type Selection, type TableEvent, type TableState } from "./state";

export interface InputHost {
  state(): TableState;
  dispatch(event: TableEvent): void;
  /** A drag began or ended: a render waits until it is over. */
  dragging(on: boolean): void;
  /** A row tile is being dragged: show what taking it would bring. */
  dragPreview(index: number): void;
}

/** A drag source (`data-drag`) as a selection; null when it cannot move now. */
export function parseSource(s: TableState, drag: string): Selection {
  const [kind, a1] = drag.split(":");
  if (kind === "rack")
    return s.rack && s.rack.slots[Number(a1)] !== null ? { kind: "rack", slot: Number(a1) } : null;
  if (kind === "row") return { kind: "row", index: Number(a1) };
  if (kind === "stock")
    return myTurn(s) && s.room.view?.phase === "take" ? { kind: "stock" } : null;
  if (kind === "atu") return { kind: "atu" };
  return null;
}

const NAV_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"]);

export class TableInput {
  private pointerTapUntil = 0;

  constructor(
    private root: HTMLElement,
    private host: InputHost,
  ) {
    root.addEventListener("click", (e) => this.onClick(e));
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    root.addEventListener("keydown", (e) => this.onKey(e));
  }

  private tap(act: string): void {
    this.host.dispatch({ type: "tap", act });
  }

  private actOf(el: HTMLElement): string | null {
    const target = el.closest<HTMLElement>("[data-act]");
    if (!target || !this.root.contains(target)) return null;
    const act = target.dataset.act!;
    // The backdrop closes the summary, the dialog inside it does not.
    if (act === "summary-close" && target.classList.contains("modal-back") && el !== target)
      return null;
    return act;
  }

  /** Clicks from the keyboard (Enter/Space: detail 0) and any the pointer path missed. */
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

  private onKey(e: KeyboardEvent): void {
    const el = e.target as HTMLElement;
    if (e.key === "Escape") {
      this.host.dispatch({ type: "key", key: e.key, slot: null });
      return;
    }
    const slotAttr = el.dataset?.slot;
    if (slotAttr === undefined || !NAV_KEYS.has(e.key)) return;
    e.preventDefault();
    this.host.dispatch({ type: "key", key: e.key, slot: Number(slotAttr) });
  }

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    const act = this.actOf(e.target as HTMLElement);
    const dragEl = (e.target as HTMLElement).closest<HTMLElement>("[data-drag]");
    const src = dragEl && this.root.contains(dragEl) ? dragEl : null;
    const sel = src ? parseSource(this.host.state(), src.dataset.drag!) : null;
    if (!act && !sel) return;
    const startX = e.clientX;
    const startY = e.clientY;
    let ghost: HTMLElement | null = null;
    let over: HTMLElement | null = null;
    let wandered = false;
    const pointerId = e.pointerId;
    // A rack wider than the screen (tiles never shrink below 32 px) scrolls by itself while
    // a tile is held near its left or right edge.
    let edge = 0;
    let edgeTimer = 0;
    const EDGE = 36;
    const autoScroll = (x: number, y: number) => {
      const box = this.root.querySelector<HTMLElement>(".rack-box");
      edge = 0;
      if (box && box.scrollWidth > box.clientWidth) {
        const r = box.getBoundingClientRect();
        if (y >= r.top && y <= r.bottom) edge = x < r.left + EDGE ? -1 : x > r.right - EDGE ? 1 : 0;
      }
      if (edge && !edgeTimer) {
        edgeTimer = window.setInterval(() => {
          const b = this.root.querySelector<HTMLElement>(".rack-box");
          if (!edge || !b) return;
          b.scrollLeft += edge * 8;
        }, 16);
      } else if (!edge && edgeTimer) {
        window.clearInterval(edgeTimer);
        edgeTimer = 0;
      }
    };

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
        this.host.dragging(true);
        ghost = src.cloneNode(true) as HTMLElement;
        ghost.classList.add("ghost");
        ghost.removeAttribute("data-testid");
        const r = src.getBoundingClientRect();
        ghost.style.width = `${r.width}px`;
        ghost.style.height = `${r.height}px`;
        document.body.appendChild(ghost);
        src.classList.add("drag-src");
        if (sel.kind === "row") this.host.dragPreview(sel.index);
      }
      ghost.style.transform = `translate(${ev.clientX - ghost.offsetWidth / 2}px, ${ev.clientY - ghost.offsetHeight / 2}px)`;
      autoScroll(ev.clientX, ev.clientY);
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
      window.clearInterval(edgeTimer);
      edgeTimer = 0;
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
      this.pointerTapUntil = Date.now() + 700;
      const tgt = ev.type === "pointerup" ? targetAt(ev.clientX, ev.clientY) : null;
      const drop = tgt?.dataset.drop;
      try {
        // Dropped nowhere: the state is unchanged (a row preview stays on screen).
        if (drop) this.host.dispatch({ type: "drop", src: sel, target: drop });
      } finally {
        this.host.dragging(false);
      }
    };
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }
}
