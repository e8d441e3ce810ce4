import "./styles.css";
import * as api from "./api";
import { clear, h } from "./dom";
import { getLang, onLangChange, setLang, t } from "./i18n";
import { renderLobby } from "./lobby";
import { showOriginRefused } from "./elsewhere";
import { RoomPage } from "./room";

// Hash routes: #/ lobby, #/join/<code> invite link, #/room/<id> a room (waiting or table).
export interface App {
  player: api.Player | null;
  root: HTMLElement;
  go(hash: string): void;
  setPlayer(p: api.Player | null): void;
  langButton(): HTMLElement;
}

let current: { dispose(): void } | null = null;

const app: App = {
  player: null,
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
  if (r.name === "room" && r.arg) {
    const page = new RoomPage(app, r.arg);
    current = page;
    page.start();
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
  if (current && "relabel" in current && typeof (current as { relabel: unknown }).relabel === "function") {
    (current as unknown as { relabel(): void }).relabel();
  } else {
    route();
  }
});

window.addEventListener("hashchange", route);
window.addEventListener(api.ORIGIN_REFUSED_EVENT, () => showOriginRefused());

(async () => {
  try {
    app.player = await api.me();
    if (app.player) await api.maybeRotate();
  } catch {
    app.player = null;
  }
  route();
})();
