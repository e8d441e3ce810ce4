// The seat's rack: fixed slots in rows, each slot empty or holding one tile id.
// Only placement lives here; whether a formation is a meld and what it is worth is
// always asked of the server.

export interface Formation {
  row: number;
  start: number; // first slot index (in the whole rack)
  slots: number[];
  tiles: number[];
}

export class Rack {
  slots: (number | null)[];

  constructor(
    public readonly cols: number,
    rows: number,
  ) {
    this.slots = new Array(cols * rows).fill(null);
  }

  get rows(): number {
    return Math.ceil(this.slots.length / this.cols);
  }

  clone(): Rack {
    const r = new Rack(this.cols, this.rows);
    r.slots = [...this.slots];
    return r;
  }

  tiles(): number[] {
    return this.slots.filter((x): x is number => x !== null);
  }

  slotOf(id: number): number {
    return this.slots.indexOf(id);
  }

  addRow(): void {
    for (let i = 0; i < this.cols; i++) this.slots.push(null);
  }

  /** Move the tile at `from` to `to`: onto an empty slot it just moves; onto a tile it is
   * inserted there, and that tile and those after it shift towards the next empty slot. */
  move(from: number, to: number): boolean {
    const id = this.slots[from];
    if (id === null || id === undefined || from === to) return false;
    this.slots[from] = null;
    this.put(id, to);
    return true;
  }

  /** Place a tile that is not on the rack (a drawn tile, a taken row tile, the atu). */
  put(id: number, to: number): void {
    const old = this.slots.indexOf(id);
    if (old >= 0) this.slots[old] = null;
    if (to >= this.slots.length) to = this.slots.length - 1;
    if (this.slots[to] === null) {
      this.slots[to] = id;
      return;
    }
    let empty = this.slots.indexOf(null, to);
    if (empty >= 0) {
      for (let i = empty; i > to; i--) this.slots[i] = this.slots[i - 1];
      this.slots[to] = id;
      return;
    }
    empty = this.slots.lastIndexOf(null, to);
    if (empty >= 0) {
      // Nothing free after: shift the tiles before the target left, insert before it.
      for (let i = empty; i < to - 1; i++) this.slots[i] = this.slots[i + 1];
      this.slots[to - 1] = id;
      return;
    }
    this.addRow();
    this.put(id, to);
  }

  /** A free slot for a tile arriving on the rack (a draw, tiles that came along from the
   * row, a hand after a rejoin): one with empty neighbours, scanning from the end, so it is
   * never glued onto a formation nor makes a false one; when there is none, a new row. */
  freeSlot(): number {
    const n = this.slots.length;
    const isFree = (i: number) => i >= 0 && i < n && this.slots[i] === null;
    const sameRow = (a: number, b: number) =>
      Math.floor(a / this.cols) === Math.floor(b / this.cols);
    for (let i = n - 1; i >= 0; i--) {
      if (!isFree(i)) continue;
      const leftOk = !sameRow(i, i - 1) || isFree(i - 1);
      const rightOk = !sameRow(i, i + 1) || isFree(i + 1);
      if (leftOk && rightOk) return i;
    }
    this.addRow();
    return this.slots.length - 1;
  }

  remove(id: number): void {
    const i = this.slots.indexOf(id);
    if (i >= 0) this.slots[i] = null;
  }

  /** Make the rack hold exactly `keep`: drop what left, place what arrived. */
  reconcile(keep: number[]): boolean {
    const want = new Set(keep);
    let changed = false;
    for (let i = 0; i < this.slots.length; i++) {
      const id = this.slots[i];
      if (id !== null && !want.has(id)) {
        this.slots[i] = null;
        changed = true;
      }
    }
    const have = new Set(this.tiles());
    for (const id of keep) {
      if (!have.has(id)) {
        this.slots[this.freeSlot()] = id;
        changed = true;
      }
    }
    // Drop trailing rows that became empty beyond the minimum.
    return changed;
  }

  /** `minLen` (the catalogue's `min_meld`) or more adjacent tiles bounded by empty slots or
   * the row's ends. */
  formations(minLen: number): Formation[] {
    const out: Formation[] = [];
    for (let r = 0; r < this.rows; r++) {
      let c = 0;
      while (c < this.cols) {
        const i = r * this.cols + c;
        if (this.slots[i] === null || this.slots[i] === undefined) {
          c++;
          continue;
        }
        const start = c;
        while (
          c < this.cols &&
          this.slots[r * this.cols + c] !== null &&
          this.slots[r * this.cols + c] !== undefined
        )
          c++;
        if (c - start >= minLen) {
          const slots: number[] = [];
          for (let k = start; k < c; k++) slots.push(r * this.cols + k);
          out.push({
            row: r,
            start: r * this.cols + start,
            slots,
            tiles: slots.map((s) => this.slots[s] as number),
          });
        }
      }
    }
    return out;
  }

  /** Lay `groups` out in order, each whole on one row, one empty slot between groups, on
   * `minRows` rows or as many more as they need (a group longer than a row is cut). */
  layGroups(groups: number[][], minRows: number): void {
    const pieces = groups.flatMap((g) => {
      const out: number[][] = [];
      for (let i = 0; i < g.length; i += this.cols) out.push(g.slice(i, i + this.cols));
      return out;
    });
    for (let rows = minRows; ; rows++) {
      const placed = layoutGroups(pieces, this.cols, rows, true);
      if (placed) {
        this.slots = placed;
        return;
      }
    }
  }

  /** Arrange the tiles in groups, one empty slot between groups, a group never split
   * across rows when it can be helped. `splits` are tried in order (finest grouping first):
   * each says whether two neighbours in the sorted order belong to different groups. */
  arrange(
    ids: number[],
    key: (id: number) => number,
    splits: Array<(a: number, b: number) => boolean>,
    minRows: number,
  ): void {
    const sorted = [...ids].sort((a, b) => key(a) - key(b));
    for (const split of splits) {
      const groups: number[][] = [];
      for (const id of sorted) {
        const g = groups[groups.length - 1];
        if (g && !split(g[g.length - 1], id)) g.push(id);
        else groups.push([id]);
      }
      for (let rows = minRows; rows <= minRows + 1; rows++) {
        const placed = layoutGroups(groups, this.cols, rows, true);
        if (placed) {
          this.slots = placed;
          return;
        }
      }
    }
    const rows = Math.max(minRows, Math.ceil(sorted.length / this.cols));
    this.slots = new Array(rows * this.cols).fill(null);
    sorted.forEach((id, i) => (this.slots[i] = id));
  }
}

function layoutGroups(
  groups: number[][],
  cols: number,
  rows: number,
  gaps: boolean,
): (number | null)[] | null {
  const slots: (number | null)[] = new Array(cols * rows).fill(null);
  let r = 0;
  let c = 0;
  for (const g of groups) {
    if (c > 0 && gaps) c++; // one empty slot between groups
    if (c + g.length > cols) {
      if (g.length <= cols) {
        r++;
        c = 0;
      } else if (!gaps) {
        // A group longer than a row: continue across (only when packing without gaps).
      } else {
        return null;
      }
    }
    for (const id of g) {
      if (c >= cols) {
        r++;
        c = 0;
      }
      if (r >= rows) return null;
      slots[r * cols + c] = id;
      c++;
    }
  }
  return slots;
}

export function sameLayout(a: (number | null)[], b: (number | null)[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The groups of one row of a layout: each run of adjacent tiles with its first column. */
function rowGroups(
  slots: (number | null)[],
  from: number,
  cols: number,
): { col: number; tiles: number[] }[] {
  const out: { col: number; tiles: number[] }[] = [];
  for (let c = 0; c < cols; c++) {
    const id = slots[from + c] ?? null;
    if (id === null) continue;
    const last = out[out.length - 1];
    if (last && last.col + last.tiles.length === c) last.tiles.push(id);
    else out.push({ col: c, tiles: [id] });
  }
  return out;
}

/** A layout of rows `from` wide drawn on rows `to` wide. Onto wider rows each row keeps its
 * columns (a phone's rack saved for every device); onto narrower rows a row that fits keeps
 * its columns, and one that does not has its groups flowed over as many rows as they need,
 * one empty slot between groups, a group never cut unless it is longer than a row. So a
 * layout narrowed then widened again, or widened then narrowed, comes back unchanged
 * wherever its rows fit. */
export function reflow(slots: (number | null)[], from: number, to: number): (number | null)[] {
  if (from === to) return [...slots];
  const rows: (number | null)[][] = [];
  const blank = () => new Array<number | null>(to).fill(null);
  for (let start = 0; start < slots.length; start += from) {
    const groups = rowGroups(slots, start, from);
    const end = groups.length
      ? groups[groups.length - 1].col + groups[groups.length - 1].tiles.length
      : 0;
    if (end <= to) {
      const row = blank();
      for (const g of groups) g.tiles.forEach((id, k) => (row[g.col + k] = id));
      rows.push(row);
      continue;
    }
    let row = blank();
    let c = 0;
    for (const g of groups) {
      if (c > 0) c++;
      if (c + g.tiles.length > to && c > 0) {
        rows.push(row);
        row = blank();
        c = 0;
      }
      for (const id of g.tiles) {
        if (c >= to) {
          rows.push(row);
          row = blank();
          c = 0;
        }
        row[c++] = id;
      }
    }
    rows.push(row);
  }
  // Empty rows at the end are dropped; a layout that only had empty rows keeps one.
  while (rows.length > 1 && rows[rows.length - 1].every((x) => x === null)) rows.pop();
  return rows.flat();
}
