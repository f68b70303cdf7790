/**
 * Names what grew in the bot's heap between two snapshots of one process (the soak's
 * --heap-snapshots): V8 keeps an object's id across the snapshots of one process, so the objects of
 * the second whose ids the first lacks were made since and are still alive. They are counted by
 * constructor, and by the path that holds each of them (its retainers up to a GC root, nearest
 * first, along the shortest chain, weak edges ignored, as DevTools shows it).
 *
 *   node --max-old-space-size=4096 --import tsx bench/soak/heap-diff.ts <first> <second> [--top 25]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface Raw {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One snapshot, read into flat arrays with the retainers of each node. */
class Snapshot {
  readonly count: number;
  private readonly nf: number;
  private readonly ef: number;
  private readonly firstEdge: Uint32Array;
  private readonly firstRetainer: Uint32Array;
  private readonly retainerEdges: Uint32Array;
  /** Hops from the root along strong edges (-1: unreachable that way). */
  readonly distance: Int32Array;

  constructor(private readonly raw: Raw) {
    const meta = raw.snapshot.meta;
    this.nf = meta.node_fields.length;
    this.ef = meta.edge_fields.length;
    this.count = raw.nodes.length / this.nf;
    this.firstEdge = new Uint32Array(this.count + 1);
    const edgeCount = meta.node_fields.indexOf("edge_count");
    for (let i = 0, e = 0; i < this.count; i++) {
      this.firstEdge[i] = e;
      e += raw.nodes[i * this.nf + edgeCount]! * this.ef;
      this.firstEdge[i + 1] = e;
    }
    // Retainers: for each node, the edge indexes pointing at it.
    const retainerCount = new Uint32Array(this.count + 1);
    for (let e = 0; e < raw.edges.length; e += this.ef) retainerCount[this.to(e)]! += 1;
    this.firstRetainer = new Uint32Array(this.count + 1);
    for (let i = 0; i < this.count; i++)
      this.firstRetainer[i + 1] = this.firstRetainer[i]! + retainerCount[i]!;
    this.retainerEdges = new Uint32Array(raw.edges.length / this.ef);
    const fill = this.firstRetainer.slice();
    const owner = new Uint32Array(raw.edges.length / this.ef);
    for (let i = 0; i < this.count; i++)
      for (let e = this.firstEdge[i]!; e < this.firstEdge[i + 1]!; e += this.ef) owner[e / this.ef] = i;
    this.owners = owner;
    for (let e = 0; e < raw.edges.length; e += this.ef) this.retainerEdges[fill[this.to(e)]!++] = e;
    this.distance = new Int32Array(this.count).fill(-1);
    const queue = new Uint32Array(this.count);
    let head = 0;
    let tail = 0;
    this.distance[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
      const node = queue[head++]!;
      for (let e = this.firstEdge[node]!; e < this.firstEdge[node + 1]!; e += this.ef) {
        if (this.edgeType(e) === "weak") continue;
        const to = this.to(e);
        if (this.distance[to] !== -1) continue;
        this.distance[to] = this.distance[node]! + 1;
        queue[tail++] = to;
      }
    }
  }

  /** The node holding each edge (by edge number). */
  private readonly owners: Uint32Array;

  private to(edge: number): number {
    return this.raw.edges[edge + 2]! / this.nf;
  }
  private edgeType(edge: number): string {
    return this.raw.snapshot.meta.edge_types[0][this.raw.edges[edge]!]!;
  }
  private edgeName(edge: number): string {
    const type = this.edgeType(edge);
    const nameOrIndex = this.raw.edges[edge + 1]!;
    if (type === "element" || type === "hidden") return "[]";
    const name =
      type === "internal" || type === "property" || type === "context" || type === "shortcut"
        ? (this.raw.strings[nameOrIndex] ?? String(nameOrIndex))
        : String(nameOrIndex);
    // A map's entries and a dictionary's keys differ per object: one path for them all.
    return /^\d+$/.test(name) ? "[]" : name.replace(/\d+/g, "#").slice(0, 40);
  }
  type(node: number): string {
    return this.raw.snapshot.meta.node_types[0][this.raw.nodes[node * this.nf]!]!;
  }
  name(node: number): string {
    return this.raw.strings[this.raw.nodes[node * this.nf + 1]!]!;
  }
  id(node: number): number {
    return this.raw.nodes[node * this.nf + 2]!;
  }
  size(node: number): number {
    return this.raw.nodes[node * this.nf + 3]!;
  }
  /** What DevTools' summary groups a node under. */
  group(node: number): string {
    const type = this.type(node);
    if (type === "object" || type === "native") return this.name(node);
    if (type.includes("string")) return "(string)";
    if (type === "closure") return `(closure) ${this.name(node) || "anonymous"}`;
    if (type === "code") return "(code)";
    return `(${type}) ${this.name(node).slice(0, 60)}`;
  }

  /** The nearest holder of `node`, along the shortest chain, that `old` says was there before (-1: none). */
  oldHolder(node: number, old: (id: number) => boolean): number {
    // Memoised along the chain: a new array's thousands of new elements share its answer.
    const chain: number[] = [];
    let at = node;
    let found = -1;
    while (at !== 0) {
      const known = this.oldHolders.get(at);
      if (known !== undefined) {
        found = known;
        break;
      }
      chain.push(at);
      const from = this.holder(at);
      if (from === -1) break;
      if (old(this.id(from))) {
        found = from;
        break;
      }
      at = from;
    }
    for (const n of chain) this.oldHolders.set(n, found);
    return found;
  }
  private readonly oldHolders = new Map<number, number>();

  /** The retainer of `node` nearest the root along strong edges (its edge), or -1. */
  private retainer(node: number): number {
    let best = -1;
    for (let r = this.firstRetainer[node]!; r < this.firstRetainer[node + 1]!; r++) {
      const edge = this.retainerEdges[r]!;
      if (this.edgeType(edge) === "weak") continue;
      const from = this.owners[edge / this.ef]!;
      if (this.distance[from] === -1) continue;
      if (best === -1 || this.distance[from]! < this.distance[this.owners[best / this.ef]!]!) best = edge;
    }
    return best;
  }

  private holder(node: number): number {
    const edge = this.retainer(node);
    return edge === -1 ? -1 : this.owners[edge / this.ef]!;
  }

  /** The chain holding `node`: "edge <- holder" pairs, nearest first, `depth` at most. */
  path(node: number, depth: number): string {
    const parts: string[] = [];
    let at = node;
    for (let hop = 0; hop < depth && at !== 0; hop++) {
      const best = this.retainer(at);
      if (best === -1) break;
      const from = this.owners[best / this.ef]!;
      parts.push(`.${this.edgeName(best)} <- ${this.group(from)}`);
      at = from;
    }
    return parts.join(" ");
  }
}

function read(path: string): Snapshot {
  return new Snapshot(JSON.parse(readFileSync(path, "utf8")) as Raw);
}

function add(map: Map<string, { count: number; bytes: number }>, key: string, bytes: number): void {
  const entry = map.get(key) ?? { count: 0, bytes: 0 };
  entry.count += 1;
  entry.bytes += bytes;
  map.set(key, entry);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, depth: { type: "string", default: "8" } },
});
const [firstPath, secondPath] = positionals;
if (!firstPath || !secondPath) {
  console.error("usage: heap-diff.ts <first.heapsnapshot> <second.heapsnapshot> [--top 25] [--depth 8]");
  process.exit(2);
}
const top = Number(values.top);
const depth = Number(values.depth);

const first = read(firstPath);
const before = new Map<string, { count: number; bytes: number }>();
const firstIds = new Set<number>();
let firstBytes = 0;
for (let i = 0; i < first.count; i++) {
  if (first.distance[i] === -1) continue;
  firstIds.add(first.id(i));
  firstBytes += first.size(i);
  add(before, first.group(i), first.size(i));
}
const second = read(secondPath);
const after = new Map<string, { count: number; bytes: number }>();
const born = new Map<string, { count: number; bytes: number }>();
const paths = new Map<string, { count: number; bytes: number }>();
const anchors = new Map<string, { count: number; bytes: number }>();
let secondBytes = 0;
for (let i = 0; i < second.count; i++) {
  if (second.distance[i] === -1) continue;
  secondBytes += second.size(i);
  add(after, second.group(i), second.size(i));
  if (firstIds.has(second.id(i))) continue;
  add(born, second.group(i), second.size(i));
  add(paths, `${second.group(i)} ${second.path(i, depth)}`, second.size(i));
  const holder = second.oldHolder(i, (id) => firstIds.has(id));
  add(
    anchors,
    holder === -1 ? "(none)" : `${second.group(holder)} ${second.path(holder, depth)}`,
    second.size(i),
  );
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(3);
console.log(
  `reachable: ${mb(firstBytes)} MB -> ${mb(secondBytes)} MB (${mb(secondBytes - firstBytes)} MB); nodes ${first.count} -> ${second.count}`,
);
console.log(`\nby constructor, second minus first (top ${top} by bytes):`);
const groups = new Set([...before.keys(), ...after.keys()]);
const deltas = [...groups].map((group) => {
  const a = before.get(group) ?? { count: 0, bytes: 0 };
  const b = after.get(group) ?? { count: 0, bytes: 0 };
  return { group, count: b.count - a.count, bytes: b.bytes - a.bytes, countAfter: b.count };
});
for (const d of deltas.sort((x, y) => y.bytes - x.bytes).slice(0, top))
  console.log(
    `${d.bytes.toString().padStart(10)} B ${d.count.toString().padStart(7)} objects (now ${d.countAfter})  ${d.group}`,
  );
console.log(`\nmade since the first and still alive, by constructor (top ${top} by bytes):`);
for (const [group, e] of [...born].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, top))
  console.log(`${e.bytes.toString().padStart(10)} B ${e.count.toString().padStart(7)} objects  ${group}`);
console.log(
  `\nmade since the first and still alive, by the nearest holder that was there before (top ${top} by bytes):`,
);
for (const [path, e] of [...anchors].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, top))
  console.log(`${e.bytes.toString().padStart(10)} B ${e.count.toString().padStart(7)} objects  in ${path}`);
console.log(`\nmade since the first and still alive, by what holds them (top ${top} by bytes):`);
for (const [path, e] of [...paths].sort((x, y) => y[1].bytes - x[1].bytes).slice(0, top))
  console.log(`${e.bytes.toString().padStart(10)} B ${e.count.toString().padStart(7)} objects  ${path}`);
