// Short sounds for the table, made by the Web Audio API: no sound file
// to download. On or off by the header's button, remembered on this device. Each sound
// played is also announced as a `remi:sound` event on window (its detail the cue's name).

import { h } from "../dom";
import { t } from "../i18n";
import type { Cue } from "./cues";

const KEY = "remi.sounds";

// Each cue: notes of [frequency Hz, start s, length s], and a gain.
const NOTES: Record<Cue, { notes: [number, number, number][]; gain: number }> = {
  turn: {
    notes: [
      [660, 0, 0.12],
      [880, 0.13, 0.18],
    ],
    gain: 0.18,
  },
  draw: { notes: [[520, 0, 0.06]], gain: 0.1 },
  discard: { notes: [[330, 0, 0.08]], gain: 0.14 },
  tick: { notes: [[1000, 0, 0.04]], gain: 0.08 },
  won: {
    notes: [
      [523, 0, 0.14],
      [659, 0.15, 0.14],
      [784, 0.3, 0.14],
      [1047, 0.45, 0.3],
    ],
    gain: 0.18,
  },
};

export class Sounds {
  private ctx: AudioContext | null = null;
  private button: HTMLButtonElement | null = null;

  get enabled(): boolean {
    try {
      return localStorage.getItem(KEY) !== "off";
    } catch {
      return true;
    }
  }

  set enabled(on: boolean) {
    try {
      localStorage.setItem(KEY, on ? "on" : "off");
    } catch {
      /* not remembered */
    }
    this.label();
  }

  /** The header's on/off button (one element, moved into each render of the table). */
  toggleButton(): HTMLButtonElement {
    if (!this.button) {
      this.button = h("button", {
        type: "button",
        class: "icon sound-btn",
        "data-testid": "sound-toggle",
      }) as HTMLButtonElement;
      this.button.addEventListener("click", () => {
        this.enabled = !this.enabled;
        if (this.enabled) this.play("draw");
      });
    }
    this.label();
    return this.button;
  }

  play(cue: Cue): void {
    if (!this.enabled) return;
    window.dispatchEvent(new CustomEvent("remi:sound", { detail: cue }));
    try {
      this.ctx ??= new AudioContext();
      const ctx = this.ctx;
      if (ctx.state === "suspended") void ctx.resume(); // browsers wait for a first tap
      const { notes, gain } = NOTES[cue];
      for (const [freq, start, len] of notes) {
        const osc = ctx.createOscillator();
        const amp = ctx.createGain();
        const at = ctx.currentTime + start;
        osc.frequency.value = freq;
        amp.gain.setValueAtTime(gain, at);
        amp.gain.exponentialRampToValueAtTime(0.001, at + len);
        osc.connect(amp).connect(ctx.destination);
        osc.start(at);
        osc.stop(at + len + 0.02);
      }
    } catch {
      /* no audio on this device: nothing to play */
    }
  }

  private label(): void {
    const b = this.button;
    if (!b) return;
    const on = this.enabled;
    b.textContent = on ? "🔊" : "🔇";
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.setAttribute("aria-label", t(on ? "sound.off" : "sound.on"));
    b.title = t(on ? "sound.off" : "sound.on");
  }
}
