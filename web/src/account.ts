// The player's account in the lobby: the balance ("cont") and joker credits, always in
// view; sign in with a username and password, claim an account for this guest, change
// the password, buy joker credits, the ledger. The server decides everything: this only
// shows its answers (docs/economy.md).
import * as api from "./api";
import { h, toast } from "./dom";
import { failureText, formatWhen, reason, translated, t } from "./i18n";

function showError(err: unknown): void {
  // The server's English is shown only when the page has no words of its own for the code.
  if (err instanceof api.ApiError)
    toast(reason(err.code, err.message), "error", translated(err.code) ? undefined : err.message);
  else toast(failureText(err));
}

function field(
  id: string,
  label: string,
  type: string,
  autocomplete: string,
): [HTMLElement, HTMLInputElement] {
  const input = h("input", {
    id,
    name: id,
    type,
    required: true,
    autocomplete,
    "data-testid": id,
  }) as HTMLInputElement;
  return [h("label", { class: "field" }, h("span", null, label), input), input];
}

/** Sign in on this device with a username and a password. */
export function signInCard(onSignedIn: (p: api.Player) => void): HTMLElement {
  const [userRow, user] = field("login-username", t("account.username"), "text", "username");
  const [passRow, pass] = field(
    "login-password",
    t("account.password"),
    "password",
    "current-password",
  );
  // A sign-in answered wins; a refusal is shown only for the latest press and never once
  // signed in: an earlier press's wrong password that arrives late says nothing.
  let latest = 0;
  let signedIn = false;
  return h(
    "form",
    {
      class: "card account-login",
      "data-testid": "login-form",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const mine = ++latest;
        const password = pass.value;
        pass.value = "";
        try {
          const player = await api.login(user.value, password);
          if (signedIn) return;
          signedIn = true;
          onSignedIn(player);
        } catch (err) {
          if (mine === latest && !signedIn) showError(err);
        }
      },
    },
    h("h2", null, t("account.signIn")),
    userRow,
    passRow,
    h(
      "button",
      { type: "submit", class: "primary", "data-testid": "login-submit" },
      t("account.signIn"),
    ),
  );
}

/** The balance and credits, and what the account can do. */
export function accountCard(): HTMLElement {
  const balance = h("strong", { "data-testid": "balance" }, "…");
  const credits = h("strong", { "data-testid": "joker-credits" }, "…");
  const who = h("span", { class: "muted", "data-testid": "account-username" });
  const body = h("div", { class: "account-body" });
  const card = h(
    "section",
    { class: "card account", "data-testid": "account" },
    h(
      "p",
      { class: "account-sums" },
      t("account.balance"),
      " ",
      balance,
      " · ",
      t("account.credits"),
      " ",
      credits,
      " ",
      who,
    ),
    body,
  );

  const show = (acc: api.Account) => {
    // The top bar's chip shows the same sums at once.
    window.dispatchEvent(new CustomEvent<api.Account>(ACCOUNT_EVENT, { detail: acc }));
    balance.textContent = String(acc.balance);
    credits.textContent = String(acc.joker_credits);
    who.textContent = acc.username
      ? t("account.signedInAs", { name: acc.username })
      : t("account.guest");
    body.replaceChildren(
      buyRow(acc, show),
      acc.username ? passwordForm() : claimForm(show),
      ledgerBox(),
    );
  };
  // A change made elsewhere on the page (a tournament's fee): the sums here follow too.
  const changed = (e: Event) => {
    if (!card.isConnected) return window.removeEventListener(ACCOUNT_EVENT, changed);
    const acc = (e as CustomEvent<api.Account>).detail;
    balance.textContent = String(acc.balance);
    credits.textContent = String(acc.joker_credits);
  };
  window.addEventListener(ACCOUNT_EVENT, changed);
  api.account().then(show, showError);
  return card;
}

/** The sums changed on the server (a tournament's fee taken or given back): read them and
 * tell every balance shown. */
export function accountChanged(): void {
  api.account().then(
    (acc) => window.dispatchEvent(new CustomEvent<api.Account>(ACCOUNT_EVENT, { detail: acc })),
    () => undefined,
  );
}

function buyRow(acc: api.Account, show: (a: api.Account) => void): HTMLElement {
  return h(
    "div",
    { class: "row" },
    h(
      "button",
      {
        type: "button",
        "data-testid": "buy-joker",
        disabled: acc.balance < acc.joker_credit_price,
        onclick: async () => {
          try {
            show(await api.buyJokers(1));
          } catch (err) {
            showError(err);
          }
        },
      },
      t("account.buyJoker", { price: acc.joker_credit_price }),
    ),
  );
}

function claimForm(show: (a: api.Account) => void): HTMLElement {
  const [userRow, user] = field("claim-username", t("account.username"), "text", "username");
  const [passRow, pass] = field(
    "claim-password",
    t("account.password"),
    "password",
    "new-password",
  );
  return h(
    "form",
    {
      class: "account-claim",
      "data-testid": "claim-form",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          show(await api.claimAccount(user.value, pass.value));
          toast(t("account.claimed"), "info");
        } catch (err) {
          showError(err);
        } finally {
          pass.value = "";
        }
      },
    },
    h("h2", null, t("account.claim")),
    h("p", { class: "muted" }, t("account.claim.hint")),
    userRow,
    passRow,
    h(
      "button",
      { type: "submit", class: "primary", "data-testid": "claim-submit" },
      t("account.claim"),
    ),
  );
}

function passwordForm(): HTMLElement {
  const [curRow, cur] = field(
    "password-current",
    t("account.password.current"),
    "password",
    "current-password",
  );
  const [newRow, next] = field(
    "password-new",
    t("account.password.new"),
    "password",
    "new-password",
  );
  return h(
    "details",
    { class: "account-password" },
    h("summary", null, t("account.password.change")),
    h(
      "form",
      {
        onsubmit: async (e: Event) => {
          e.preventDefault();
          try {
            await api.changePassword(cur.value, next.value);
            toast(t("account.password.changed"), "info");
          } catch (err) {
            showError(err);
          } finally {
            cur.value = "";
            next.value = "";
          }
        },
      },
      curRow,
      newRow,
      h("button", { type: "submit" }, t("account.password.change")),
    ),
  );
}

function ledgerBox(): HTMLElement {
  const list = h("ul", { class: "ledger", "data-testid": "ledger" });
  let next: number | null | undefined;
  const more = h(
    "button",
    { type: "button", class: "small", hidden: true },
    t("account.ledger.more"),
  );
  const load = async () => {
    try {
      const page = await api.ledger(next ?? undefined);
      for (const e of page.entries) {
        const parts = [];
        if (e.amount) parts.push(`${e.amount > 0 ? "+" : ""}${e.amount}`);
        if (e.credits) parts.push(`${e.credits > 0 ? "+" : ""}${e.credits} ★`);
        list.append(
          h(
            "li",
            null,
            h("span", null, t(`account.reason.${e.reason}`, { round: e.round_number ?? "" })),
            " ",
            h("strong", null, parts.join(" ")),
            " ",
            h("span", { class: "muted" }, formatWhen(e.created_at)),
          ),
        );
      }
      next = page.next_before;
      more.hidden = next === null;
    } catch (err) {
      showError(err);
    }
  };
  more.addEventListener("click", () => void load());
  const box = h(
    "details",
    { class: "account-ledger" },
    h("summary", null, t("account.ledger")),
    list,
    more,
  );
  box.addEventListener("toggle", () => {
    if ((box as HTMLDetailsElement).open && next === undefined) void load();
  });
  return box;
}

/** The balance and joker credits, small, for a page's top bar: always in view. */
export function accountChip(): HTMLElement {
  const balance = h("span", { "data-testid": "chip-balance" }, "…");
  const credits = h("span", { "data-testid": "chip-credits" }, "…");
  const chip = h(
    "span",
    {
      class: "chip",
      "data-testid": "account-chip",
      title: `${t("account.balance")} · ${t("account.credits")}`,
    },
    h("span", { class: "sr-only" }, t("account.balance"), " "),
    balance,
    " · ★",
    h("span", { class: "sr-only" }, t("account.credits"), " "),
    credits,
  );
  const fill = (acc: api.Account) => {
    balance.textContent = String(acc.balance);
    credits.textContent = String(acc.joker_credits);
  };
  const changed = (e: Event) => {
    if (!chip.isConnected) window.removeEventListener(ACCOUNT_EVENT, changed);
    else fill((e as CustomEvent<api.Account>).detail);
  };
  window.addEventListener(ACCOUNT_EVENT, changed);
  api.account().then(fill, () => chip.remove());
  return chip;
}

/** Sent on `window` with the account whenever the page learns new sums (a joker bought,
 * an account claimed): every balance shown follows at once. */
export const ACCOUNT_EVENT = "remi:account";
