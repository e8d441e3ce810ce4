import { readFileSync, statSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { constants, gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vite";
// @ts-expect-error: a plain .mjs build script (no types)
import { lockFile, offlineAssets, PYODIDE_DIR, serviceWorker } from "./scripts/offline-assets.mjs";
// @ts-expect-error: a plain .mjs build script (no types)
import { sourceZip } from "./scripts/pack-python.mjs";

// `npm run dev` proxies the API and the socket to a server started with scripts/run.
const backend = process.env.REMI_BACKEND ?? "http://127.0.0.1:8000";

/** The offline practice and the installable app: Pyodide's files and the packed Python
 * (with its bytecode) under pyodide/, the manifest and its icons, then sw.js listing
 * every file of the build (scripts/offline-assets.mjs). The dev server serves Pyodide's
 * files and the packed sources (without bytecode: Python compiles them at import). */
function offline(): Plugin {
  return {
    name: "remi-offline",
    async generateBundle(_options, bundle) {
      const files: Record<string, string | Uint8Array> = {};
      for (const [name, out] of Object.entries(bundle))
        files[name] = out.type === "asset" ? out.source : out.code;
      // The emitted assets are listed as emitted: the bundler need not add them to `bundle`.
      for (const [fileName, source] of (await offlineAssets()) as [string, Buffer][]) {
        this.emitFile({ type: "asset", fileName, source });
        files[fileName] = source;
      }
      this.emitFile({ type: "asset", fileName: "sw.js", source: serviceWorker(files) });
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = (req.url ?? "").split("?")[0];
        const name = path.replace(/^\/pyodide\//, "");
        if (
          path.startsWith("/pyodide/") &&
          ["pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"].includes(name)
        ) {
          res.setHeader(
            "Content-Type",
            name.endsWith(".wasm")
              ? "application/wasm"
              : name.endsWith(".mjs")
                ? "text/javascript"
                : "application/zip",
          );
          res.end(readFileSync(join(PYODIDE_DIR, name)));
        } else if (path === "/pyodide/pyodide-lock.json") {
          res.setHeader("Content-Type", "application/json");
          res.end(lockFile());
        } else if (path === "/pyodide/remi-python.zip") {
          res.setHeader("Content-Type", "application/zip");
          res.end(sourceZip());
        } else next();
      });
    },
  };
}

/** Text and WebAssembly worth compressing (zip and PNG files are compressed already). */
const COMPRESSIBLE = new Set([
  ".html",
  ".js",
  ".mjs",
  ".css",
  ".json",
  ".wasm",
  ".webmanifest",
  ".svg",
]);

/** A gzipped copy beside every compressible file of the build that gzip makes at least a
 * tenth smaller (`<name>.gz`); the server sends it to clients that accept gzip
 * (server/webfiles.py). Written after the bundle, so sw.js does not list the copies. */
function compressed(): Plugin {
  return {
    name: "remi-gzip",
    apply: "build",
    writeBundle(options, bundle) {
      const dir = options.dir ?? "dist";
      for (const name of Object.keys(bundle)) {
        if (!COMPRESSIBLE.has(extname(name))) continue;
        const path = join(dir, name);
        const size = statSync(path).size;
        if (size < 1024) continue;
        const gz = gzipSync(readFileSync(path), { level: constants.Z_BEST_COMPRESSION });
        if (gz.length <= size * 0.9) writeFileSync(`${path}.gz`, gz);
      }
    },
  };
}

export default defineConfig({
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false },
  worker: { format: "es" },
  optimizeDeps: { exclude: ["pyodide"] },
  plugins: [offline(), compressed()],
  server: {
    proxy: {
      "/api": backend,
      "/ws": { target: backend.replace(/^http/, "ws"), ws: true },
    },
  },
});
