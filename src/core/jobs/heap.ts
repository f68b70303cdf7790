/**
 * A binary min-heap of values by a numeric key: the smallest key comes out first, ties in no
 * particular order. The scheduler orders jobs by due time with it, the poller due reads by urgency.
 */
export class MinHeap<T> {
  private readonly keys: number[] = [];
  private readonly values: T[] = [];

  get size(): number {
    return this.keys.length;
  }

  /** The smallest key, or +Infinity when empty. */
  peekKey(): number {
    return this.keys.length > 0 ? this.keys[0]! : Number.POSITIVE_INFINITY;
  }

  /** The value of the smallest key; undefined when empty. */
  peek(): T | undefined {
    return this.values[0];
  }

  push(key: number, value: T): void {
    const { keys, values } = this;
    let i = keys.length;
    keys.push(key);
    values.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (keys[parent]! <= key) break;
      keys[i] = keys[parent]!;
      values[i] = values[parent]!;
      i = parent;
    }
    keys[i] = key;
    values[i] = value;
  }

  /** Removes and answers the value of the smallest key; undefined when empty. */
  pop(): T | undefined {
    const { keys, values } = this;
    if (keys.length === 0) return undefined;
    const top = values[0];
    const lastKey = keys.pop()!;
    const lastValue = values.pop()!;
    const n = keys.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && keys[right]! < keys[left]! ? right : left;
      if (keys[child]! >= lastKey) break;
      keys[i] = keys[child]!;
      values[i] = values[child]!;
      i = child;
    }
    keys[i] = lastKey;
    values[i] = lastValue;
    return top;
  }

  clear(): void {
    this.keys.length = 0;
    this.values.length = 0;
  }
}
