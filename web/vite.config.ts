import { defineConfig } from "vite";

// `npm run dev` proxies the API and the socket to a server started with scripts/run.
const backend = process.env.REMI_BACKEND ?? "http://127.0.0.1:8000";

export default defineConfig({
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, target: "es2020", sourcemap: false },
  server: {
    proxy: {
      "/api": backend,
      "/ws": { target: backend.replace(/^http/, "ws"), ws: true },
    },
  },
});
