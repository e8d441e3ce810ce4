// The service worker's registration (sw.js, written by the build: scripts/offline-assets.mjs).
// It caches the app shell, the bundle and Pyodide's files on the first visit; after that
// the page and the practice open offline. The lobby registers it once the page has loaded
// and settled (its ~14 MB never compete with the lobby's first requests); a practice
// started before that registers it at once and waits for it (`cachedFirst`), so that a
// first visit downloads each file once: into the service worker's cache, which the
// practice worker then reads.

let registration: Promise<ServiceWorkerRegistration | null> | null = null;

/** Whether this page can have the service worker (the built app, a browser with one). */
function supported(): boolean {
  return import.meta.env.PROD && "serviceWorker" in navigator;
}

/** Register sw.js (once per page); null when it cannot be. */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!supported()) return Promise.resolve(null);
  registration ??= navigator.serviceWorker
    .register(`${import.meta.env.BASE_URL}sw.js`)
    .catch(() => null);
  return registration;
}

/** Register it 2 s after the page's `load`. */
export function registerWhenSettled(): void {
  if (!supported()) return;
  const later = () => window.setTimeout(() => void registerServiceWorker(), 2000);
  if (document.readyState === "complete") later();
  else window.addEventListener("load", later, { once: true });
}

/** Resolves once the service worker controls this page, at once if it already does. On
 * a first visit that is when its install has cached every file (it then claims the
 * page). Also resolves when there is none to wait for: no service worker here, its
 * registration or install failed, or an active one that does not control this page (a
 * forced reload): the files then come from the network and the HTTP cache. */
export async function cachedFirst(): Promise<void> {
  if (!supported() || navigator.serviceWorker.controller) return;
  const reg = await registerServiceWorker();
  if (!reg || navigator.serviceWorker.controller) return;
  const pending = reg.installing ?? reg.waiting;
  if (!pending) return;
  await new Promise<void>((resolve) => {
    navigator.serviceWorker.addEventListener("controllerchange", () => resolve(), { once: true });
    pending.addEventListener("statechange", () => {
      // Activated: it claimed this page just before (sw.js `clients.claim()`);
      // redundant: its install failed.
      if (pending.state === "activated" || pending.state === "redundant") resolve();
    });
  });
}
