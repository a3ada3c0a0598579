/**
 * The two halves a journal batch crosses to the writer thread in (docs/writer.md §Crossing): every
 * number, flag and absent value in one Float64Array, which is transferred (moved, not copied), and
 * the batch's distinct strings, once each, which are cloned. Structured clone costs about 0.1 µs
 * per string it writes and reads back; a batch repeats the same few strings (the protocol, the
 * event class, a device's account and address) in every row, so it sends each once and the rows
 * name it by its place. Pure: values in, values out; the reader reads in the order the packer wrote.
 *
 * Encoding in the numbers: a number as itself, null as NaN (no value packed is ever NaN), a boolean
 * as 0/1, a string as its index in the strings, null as -1.
 */

/** A packed batch: the numbers (transferred) and the distinct strings. */
export type PackedValues = readonly [numbers: Float64Array, strings: string[]];

const NO_STRING = -1;

export class ValuePacker {
  private numbers: Float64Array;
  private length = 0;
  private readonly strings: string[] = [];
  private readonly index = new Map<string, number>();

  /** `capacity`: numbers expected (the array grows when it is too small). */
  constructor(capacity: number) {
    this.numbers = new Float64Array(Math.max(16, capacity));
  }

  num(value: number | null): void {
    if (this.length === this.numbers.length) this.grow();
    this.numbers[this.length++] = value === null ? Number.NaN : value;
  }

  bool(value: boolean): void {
    this.num(value ? 1 : 0);
  }

  str(value: string | null): void {
    if (value === null) {
      this.num(NO_STRING);
      return;
    }
    let at = this.index.get(value);
    if (at === undefined) {
      at = this.strings.length;
      this.strings.push(value);
      this.index.set(value, at);
    }
    this.num(at);
  }

  /** The packed values; the packer is not used again. */
  done(): PackedValues {
    return [this.numbers.subarray(0, this.length), this.strings];
  }

  private grow(): void {
    const bigger = new Float64Array(this.numbers.length * 2);
    bigger.set(this.numbers);
    this.numbers = bigger;
  }
}

export class ValueReader {
  private readonly numbers: Float64Array;
  private readonly strings: readonly string[];
  /** The next value's place (the position of an error). */
  at = 0;

  constructor([numbers, strings]: PackedValues) {
    this.numbers = numbers;
    this.strings = strings;
  }

  get done(): boolean {
    return this.at >= this.numbers.length;
  }

  num(): number | null {
    const value = this.numbers[this.at++]!;
    return Number.isNaN(value) ? null : value;
  }

  /** A number that is never absent. */
  int(): number {
    return this.numbers[this.at++]!;
  }

  bool(): boolean {
    return this.numbers[this.at++] === 1;
  }

  str(): string | null {
    // As an int32: a double used as an index takes the generic (slow) element load.
    const at = this.numbers[this.at++]! | 0;
    return at === NO_STRING ? null : this.strings[at]!;
  }
}
