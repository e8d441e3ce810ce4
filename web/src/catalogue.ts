// The variant catalogue (GET /api/variants, server/rules/catalogue.py): every fact about a
// variant the client uses: its name, faces, seats, rack rows, atu, how a turn takes,
// the room options it has. The client keeps no variant list and no rule of its own.
// A page that cannot reach the server asks the engine in the practice worker
// (practice/local.ts: the same server/rules/catalogue.py, under Pyodide).

import { ApiError, getVariants, type Catalogue } from "./api";
import { getLang } from "./i18n";
import type { VariantFacts } from "./protocol.gen";

export type { VariantFacts };

let loaded: VariantFacts[] | null = null;
let loading: Promise<VariantFacts[]> | null = null;

/** The server's last catalogue, kept on the device (`localStorage`): offline, the
 * practice's settings show at once instead of after the engine has started. */
const KEPT = "remi.catalogue";

function kept(): Catalogue | null {
  try {
    const c = JSON.parse(localStorage.getItem(KEPT) ?? "null") as Catalogue | null;
    return c && Array.isArray(c.variants) && c.variants.length ? c : null;
  } catch {
    return null;
  }
}

/** The catalogue, fetched once per page load; without the server, the one kept from the
 * last visit, else the engine's in the practice worker. */
export function loadCatalogue(): Promise<VariantFacts[]> {
  if (loaded) return Promise.resolve(loaded);
  if (!loading) {
    loading = getVariants()
      .then((c) => {
        try {
          localStorage.setItem(KEPT, JSON.stringify(c));
        } catch {
          /* not kept */
        }
        return c;
      })
      .catch(async (err) => {
        if (!(err instanceof ApiError) || err.status !== 0) throw err;
        const last = kept();
        if (last) return last;
        const { localCatalogue } = await import("./practice/local");
        return (await localCatalogue()) as Catalogue;
      })
      .then((c) => (loaded = c.variants))
      .catch((err) => {
        loading = null; // asked again next time
        throw err;
      });
  }
  return loading;
}

/** Every variant, in the catalogue's order (empty until loaded). */
export function variants(): VariantFacts[] {
  return loaded ?? [];
}

export function variantFacts(id: string | null | undefined): VariantFacts | null {
  return (id && loaded?.find((v) => v.id === id)) || null;
}

/** The variant's name in the chosen language. */
export function variantName(id: string | null | undefined): string {
  const v = variantFacts(id);
  if (!v) return id ?? "";
  return v.names[getLang()] ?? v.title;
}
