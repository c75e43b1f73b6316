/**
 * Values held for a while (a job awaiting its answer, a request being answered), each under the
 * number of the slot it was put in, in an array that lives as long as its owner: a slot is
 * cleared when its value is taken and reused by a later one, so the array is never rebuilt.
 *
 * Why not a Map or Set with an entry added and deleted per request: V8 rebuilds such a table
 * every few hundred deletions and links each retired table to the next. Once one of them had
 * reached the old generation, every later table, and what each held, outlived the young
 * generation's collections until the next full one
 * (docs/internals.md, "Slots, not a Map, for what is held per request").
 */
export class Slots<T extends object> {
  readonly #values: Array<T | undefined> = [];
  readonly #free: number[] = [];
  #size = 0;

  /** How many values are held. */
  get size(): number {
    return this.#size;
  }

  /** Holds `value`; returns the number of its slot. */
  add(value: T): number {
    const slot = this.#free.length ? this.#free.pop()! : this.#values.length;
    this.#values[slot] = value;
    this.#size++;
    return slot;
  }

  /** The value in `slot`, no longer held (`undefined` when the slot holds none). */
  take(slot: number): T | undefined {
    // A number that names no slot (negative, fractional, NaN, too high) reads `undefined` too.
    const value = this.#values[slot];
    if (value === undefined) return undefined;
    this.#values[slot] = undefined;
    this.#free.push(slot);
    this.#size--;
    return value;
  }

  /** Every value held, in slot order. */
  *values(): IterableIterator<T> {
    for (const value of this.#values) if (value !== undefined) yield value;
  }

  /** Takes every value held; returns them in slot order. */
  takeAll(): T[] {
    const values = [...this.values()];
    this.#values.fill(undefined);
    this.#free.length = 0;
    for (let slot = this.#values.length - 1; slot >= 0; slot--) this.#free.push(slot);
    this.#size = 0;
    return values;
  }
}
