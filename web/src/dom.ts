// A tiny element builder: h("button", { class: "x", onclick: fn }, "text", child).

type Attrs = Record<string, unknown>;
type Child = Node | string | number | null | undefined | false | Child[];

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") {
        el.addEventListener(k.slice(2), v as EventListener);
      } else if (k === "class") {
        el.className = String(v);
      } else if (k === "dataset") {
        Object.assign(el.dataset, v as Record<string, string>);
      } else if (k === "style" && typeof v === "object") {
        Object.assign(el.style, v);
      } else if (v === true) {
        el.setAttribute(k, "");
      } else if (
        k === "value" &&
        (el instanceof HTMLInputElement || el instanceof HTMLSelectElement)
      ) {
        el.value = String(v);
      } else {
        el.setAttribute(k, String(v));
      }
    }
  }
  append(el, children);
  return el;
}

/** A player's display name on the page: its own text node (never markup) in a `<bdi>`, so
 * a right-to-left name does not reorder the words around it, wrapping anywhere (CSS
 * `.name`) so that one long word does not widen its box. `cls` adds classes; `titled` also
 * gives it the name as a tooltip (where the box cuts it short with an ellipsis). */
export function nameEl(name: string, cls = "", titled = false): HTMLElement {
  return h("bdi", { class: cls ? `name ${cls}` : "name", title: titled ? name : null }, name);
}

/** Several names, each a {@link nameEl}, comma-separated. */
export function namesEl(names: string[]): Child[] {
  return names.flatMap((n, i) => (i ? [", ", nameEl(n)] : [nameEl(n)]));
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

let toastTimer = 0;

/** A message over the page (never moves the layout). */
export function toast(text: string, kind: "error" | "info" = "error", detail?: string): void {
  let el = document.getElementById("toast");
  if (!el) {
    el = h("div", { id: "toast", role: "alert" });
    document.body.appendChild(el);
  }
  clear(el);
  el.className = `toast ${kind} show`;
  el.appendChild(h("div", { class: "toast-text" }, text));
  if (detail && detail !== text) el.appendChild(h("div", { class: "toast-detail" }, detail));
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(
    () => el!.classList.remove("show"),
    kind === "error" ? 6000 : 2500,
  );
}
