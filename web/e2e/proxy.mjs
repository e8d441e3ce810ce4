// A loopback proxy in front of the test server that counts what the server sends, per
// path: requests, full answers (200, a body) and bytes (status line, headers, body),
// whoever asked (the page, its workers, the service worker). Used by offline.test.mjs and
// scripts/bench-offline.mjs; `rate` (bytes a second per answer) plays a slower network.
import { createServer, request } from "node:http";

export function countingProxy(target, { rate = 0 } = {}) {
  const to = new URL(target);
  const sent = new Map();
  const entry = (path) => {
    const c = sent.get(path) ?? { requests: 0, full: 0, bytes: 0 };
    sent.set(path, c);
    return c;
  };
  const srv = createServer((req, res) => {
    const path = req.url.split("?")[0];
    const up = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        const c = entry(path);
        c.requests += 1;
        if (r.statusCode === 200) c.full += 1;
        c.bytes += 17 + r.statusMessage.length + r.rawHeaders.reduce((a, h) => a + h.length + 2, 0);
        res.writeHead(r.statusCode, r.statusMessage, r.rawHeaders);
        const t0 = Date.now();
        let n = 0;
        r.on("data", (chunk) => {
          c.bytes += chunk.length;
          n += chunk.length;
          res.write(chunk);
          const wait = rate ? (n / rate) * 1000 - (Date.now() - t0) : 0;
          if (wait > 0) {
            r.pause();
            setTimeout(() => r.resume(), wait);
          }
        });
        r.on("end", () => res.end());
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  return new Promise((ok) =>
    srv.listen(0, "127.0.0.1", () =>
      ok({
        url: `http://127.0.0.1:${srv.address().port}`,
        /** What was sent since the last take: Map path → { requests, full, bytes }. */
        take() {
          const out = new Map(sent);
          sent.clear();
          return out;
        },
        close: () =>
          new Promise((r) => {
            srv.closeAllConnections();
            srv.close(r);
          }),
      }),
    ),
  );
}
