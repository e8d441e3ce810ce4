import "./styles.css";
import * as api from "./api";
import { clear, h } from "./dom";
import { getLang, onLangChange, setLang, t } from "./i18n";
import { renderLeaderboard, renderProfile } from "./boards";
import { renderHowto } from "./howto";
import { renderLobby } from "./lobby";
import { showOriginRefused } from "./elsewhere";
import { NEW_KEY } from "./practice/box";
import { warmPractice } from "./practice/local";
import type { PracticeSettings } from "./practice/store";
import { ReplayPage } from "./replay";
import { RoomPage } from "./room";
import { registerWhenSettled } from "./sw";
import { TournamentPage } from "./tournament";
import { VerifyPage } from "./verify";

// Hash routes: #/ lobby, #/join/<code> invite link, #/room/<id> a room (waiting or table),
// #/practice the practice on this device (the worker's room; a reload resumes it),
// #/replay/<room>/<round>[/<step>] a finished round step by step, #/verify/<room>/<round>
// the check of its deal (docs/fairness.md), #/leaderboard/<variant|balance> the
// leaderboards, #/player/<id> a player's profile, #/tournament/<id> a tournament's page,
// #/howto/<variant> how to play a variant.
export interface App {
  player: api.Player | null;
  /** The server could not be reached when the page loaded (or the browser is offline). */
  offline: boolean;
  retryOnline(): void;
  root: HTMLElement;
  go(hash: string): void;
  setPlayer(p: api.Player | null): void;
  langButton(): HTMLElement;
}

let current: { dispose(): void } | null = null;

const app: App = {
  player: null,
  offline: false,
  retryOnline() {
    void identify().then(route);
  },
  root: document.getElementById("app")!,
  go(hash: string) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  setPlayer(p) {
    this.player = p;
  },
  langButton() {
    return h(
      "button",
      {
        class: "lang",
        type: "button",
        "aria-label": t("lang.toggle.aria"),
        "data-testid": "lang",
        onclick: () => setLang(getLang() === "ro" ? "en" : "ro"),
      },
      t("lang.toggle"),
    );
  },
};

function parse(): { name: string; arg: string } {
  const raw = location.hash.replace(/^#\/?/, "");
  const [name = "", ...rest] = raw.split("/");
  return { name, arg: decodeURIComponent(rest.join("/")) };
}

function route(): void {
  current?.dispose();
  current = null;
  clear(app.root);
  const r = parse();
  if (r.name === "practice") {
    const fresh = sessionStorage.getItem(NEW_KEY);
    sessionStorage.removeItem(NEW_KEY);
    const delay = Number(localStorage.getItem("remi.practice.bot_delay") ?? "0.8");
    const seed = Array.from(crypto.getRandomValues(new Uint32Array(2)), (x) => x.toString(36)).join(
      "",
    );
    const page = new RoomPage(app, "practice", {
      settings: fresh ? (JSON.parse(fresh) as PracticeSettings) : null,
      name: app.player?.display_name ?? null,
      seed,
      botDelay: Number.isFinite(delay) && delay >= 0 ? delay : 0.8,
    });
    current = page;
    page.start();
    return;
  }
  if (r.name === "room" && r.arg) {
    const page = new RoomPage(app, r.arg);
    current = page;
    page.start();
    return;
  }
  if ((r.name === "replay" || r.name === "verify") && r.arg) {
    const [room = "", round = "", step = "0"] = r.arg.split("/");
    const n = Number(round);
    if (room && Number.isInteger(n) && n >= 1) {
      const page =
        r.name === "replay"
          ? new ReplayPage(app, room, n, Number(step) || 0)
          : new VerifyPage(app, room, n);
      current = page;
      page.start();
      return;
    }
  }
  if (r.name === "tournament" && r.arg) {
    const page = new TournamentPage(app, r.arg);
    current = page;
    page.start();
    return;
  }
  if (r.name === "howto") {
    current = renderHowto(app, r.arg);
    return;
  }
  if (r.name === "leaderboard") {
    current = renderLeaderboard(app, r.arg);
    return;
  }
  if (r.name === "player" && r.arg) {
    current = renderProfile(app, r.arg);
    return;
  }
  if (r.name === "join" && r.arg) {
    current = renderLobby(app, { joinCode: r.arg });
    return;
  }
  current = renderLobby(app, {});
}

onLangChange(() => {
  // Pages that keep live state re-render themselves; others are rebuilt.
  if (
    current &&
    "relabel" in current &&
    typeof (current as { relabel: unknown }).relabel === "function"
  ) {
    (current as unknown as { relabel(): void }).relabel();
  } else {
    route();
  }
});

window.addEventListener("hashchange", route);
window.addEventListener(api.ORIGIN_REFUSED_EVENT, () => showOriginRefused());

async function identify(): Promise<void> {
  try {
    app.player = await api.me();
    app.offline = false;
    if (app.player) await api.maybeRotate();
  } catch (err) {
    app.player = null;
    app.offline = err instanceof api.ApiError && err.status === 0;
  }
}

// The service worker (sw.ts): registered once the page has settled, or at once by a
// practice started before that.
registerWhenSettled();
// A page opened on the practice (a reload, a kept match resumed) starts Pyodide in the
// practice worker at once, while the page itself loads the identity and the catalogue.
if (parse().name === "practice") warmPractice();
window.addEventListener("online", () => {
  // The lobby is drawn again with the online features; a table is left as it is.
  if (app.offline && parse().name === "") app.retryOnline();
  else if (app.offline) void identify();
});

void identify().then(route);
