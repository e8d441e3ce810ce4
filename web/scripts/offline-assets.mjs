// What the build adds for the offline practice and the installable app (vite.config.ts):
// Pyodide's files from the npm package (served by the app under pyodide/, never a CDN),
// the packed Python with its bytecode (pack-python.mjs), the web app manifest with its
// icons (the PNG files of web/icons), and the service worker with the list of every file
// to cache on the first visit.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PYODIDE_DIR, pythonBundle, REPO } from "./pack-python.mjs";

export { PYODIDE_DIR };

/** Pyodide's lock file without its package list: the practice loads no Pyodide package
 * (the standard library is enough), so the worker neither downloads nor reads the list
 * of the ~300 packages it could (`info` is kept: Pyodide checks its ABI version). */
export function lockFile() {
  const lock = JSON.parse(readFileSync(join(PYODIDE_DIR, "pyodide-lock.json"), "utf8"));
  return Buffer.from(JSON.stringify({ info: lock.info, packages: {} }));
}

/** Every file the build adds: `[path under dist, contents]`. */
export async function offlineAssets() {
  const python = await pythonBundle();
  const out = [
    ["pyodide/pyodide.asm.mjs", readFileSync(join(PYODIDE_DIR, "pyodide.asm.mjs"))],
    ["pyodide/pyodide.asm.wasm", readFileSync(join(PYODIDE_DIR, "pyodide.asm.wasm"))],
    ["pyodide/python_stdlib.zip", python["python_stdlib.zip"]],
    ["pyodide/pyodide-lock.json", lockFile()],
    ["pyodide/remi-python.zip", python["remi-python.zip"]],
  ];
  for (const size of [192, 512]) {
    out.push([
      `icons/icon-${size}.png`,
      readFileSync(join(REPO, "web", "icons", `icon-${size}.png`)),
    ]);
  }
  out.push(["manifest.webmanifest", Buffer.from(JSON.stringify(MANIFEST, null, 2))]);
  return out;
}

export const MANIFEST = {
  name: "Remi online",
  short_name: "Remi",
  description: "Remi pe tablă: online cu prieteni, sau antrenament pe dispozitiv, fără conexiune.",
  lang: "ro",
  start_url: "./",
  scope: "./",
  display: "standalone",
  background_color: "#1f5d3a",
  theme_color: "#1f5d3a",
  icons: [
    { src: "icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any maskable" },
    { src: "icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any maskable" },
  ],
};

// ---------------------------------------------------------------- the service worker

/** sw.js for the built files `{path: contents}` (paths under dist, `/`-separated). */
export function serviceWorker(files) {
  const paths = Object.keys(files)
    .filter((p) => p !== "sw.js")
    .sort();
  const hash = createHash("sha256");
  for (const p of paths) hash.update(p).update(files[p]);
  const version = hash.digest("hex").slice(0, 16);
  const list = ["./", ...paths.filter((p) => p !== "index.html")];
  return SW_SOURCE.replace("__VERSION__", version).replace("__FILES__", JSON.stringify(list));
}

const SW_SOURCE = `// Remi online's service worker (written by the build: web/scripts/offline-assets.mjs).
// Caches the app shell, the bundle and Pyodide's files on the first visit; serves them
// from the cache (the page itself network first, so a new build is seen at once online).
// The API, the lobby's events and the room sockets are never cached: offline they fail
// at once, and the page says they need a connection.
const VERSION = "__VERSION__";
const CACHE = "remi-" + VERSION;
const FILES = __FILES__;

// "no-cache": each file is asked of the server with the HTTP cache's validators, so a
// file the page or its worker has just downloaded comes back as a 304 (not twice), and an
// older copy in the HTTP cache is never taken into a new build's cache.
self.addEventListener("install", (event) => {
  const requests = FILES.map((f) => new Request(f, { cache: "no-cache" }));
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(requests)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("remi-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  const path = url.pathname;
  if (path.startsWith("/api/") || path.startsWith("/ws/") || path === "/healthz" || path === "/metrics") return;
  if (req.mode === "navigate") {
    event.respondWith(
      fetch(req).catch(() => caches.open(CACHE).then((c) => c.match("./", { ignoreVary: true })).then((r) => r || Response.error())),
    );
    return;
  }
  // ignoreVary: the server's CORS layer answers "Vary: Origin", and a module script's
  // request names its origin where the install's did not.
  event.respondWith(caches.open(CACHE).then((c) => c.match(req, { ignoreVary: true }).then((hit) => hit || fetch(req))));
});
`;
