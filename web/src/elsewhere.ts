// The notices of a room socket the server closed for its session: the seat is played
// from another device or tab (close 4409: a "play here" button takes it back), or this
// device was signed out (close 4403: back to the lobby, signed out).

import * as api from "./api";
import { h, toast } from "./dom";
import { t } from "./i18n";
import type { App } from "./main";

const ID = "elsewhere";

/** Show that the seat is played elsewhere; `takeBack` reconnects here. */
export function showElsewhere(takeBack: () => void): void {
  hideElsewhere();
  const button = h(
    "button",
    {
      type: "button",
      class: "primary",
      "data-testid": "play-here",
      onclick: () => {
        hideElsewhere();
        takeBack();
      },
    },
    t("room.elsewhere.take"),
  );
  document.body.append(
    h(
      "div",
      {
        id: ID,
        class: "elsewhere",
        role: "alertdialog",
        "aria-live": "assertive",
        "data-testid": "played-elsewhere",
      },
      h(
        "div",
        { class: "card" },
        h("p", null, t("room.elsewhere")),
        h("p", { class: "muted" }, t("room.elsewhere.hint")),
        button,
      ),
    ),
  );
  button.focus();
}

/** The origin notice was closed: the page does not show it again (each refused request
 * would bring it back). */
let originClosed = false;

/** The server refused this page's origin (close 4003): say why, and what the operator
 * sets; reconnecting would be refused again. The player can close it. */
export function showOriginRefused(): void {
  if (originClosed) return;
  hideElsewhere();
  const close = h(
    "button",
    {
      type: "button",
      "data-testid": "origin-close",
      onclick: () => {
        originClosed = true;
        hideElsewhere();
      },
    },
    t("common.close"),
  );
  document.body.append(
    h(
      "div",
      {
        id: ID,
        class: "elsewhere",
        role: "alertdialog",
        "aria-live": "assertive",
        "data-testid": "origin-refused",
      },
      h(
        "div",
        { class: "card" },
        h("p", null, t("room.origin")),
        h("p", { class: "muted" }, t("room.origin.hint", { origin: location.origin })),
        close,
      ),
    ),
  );
  close.focus();
}

export function hideElsewhere(): void {
  document.getElementById(ID)?.remove();
}

/** The socket's token was revoked. Another tab may have signed this browser in again
 * (sign out on other devices gives it a new token): then just reconnect; otherwise
 * forget the token and go to the lobby, signed out. */
export async function signedOut(app: App, reconnect: () => void): Promise<void> {
  let player: api.Player | null = null;
  try {
    player = await api.me();
  } catch {
    player = null;
  }
  if (player) {
    app.setPlayer(player);
    reconnect();
    return;
  }
  api.forgetToken();
  app.setPlayer(null);
  toast(t("session.signedOut"), "info");
  app.go("#/");
}
