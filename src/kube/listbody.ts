/**
 * Cuts a list answer (`{"apiVersion":…,"items":[…],"kind":…,"metadata":{…}}`) into its items
 * as the bytes arrive, and parses each item on its own. A page of PipelineRuns is megabytes
 * of JSON: parsed whole, it is held three times over (bytes, text, tree) and most of it is
 * promoted before it dies. Item by item, only one item's tree exists at a time, and the
 * rest of the answer (the envelope: kind, metadata with `continue`) is parsed at the end
 * with `"items":[]` in place of the array. bench/RESULTS.md has the figures.
 *
 * Only the ASCII bytes `"` `\` `{` `}` `[` `]` `,` are looked at, and none of them occurs
 * inside a multi-byte UTF-8 sequence, so scanning bytes is exact; an item's bytes are
 * decoded together, whatever chunks they came in.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The top-level object's members are at depth 1, the items array's elements at depth 2. */
const ITEMS_DEPTH = 2;
const ITEMS_KEY = /"items"\s*:\s*$/;
const TAIL_BYTES = 64;

/** The answer is not JSON (cut short, or damaged): like a broken connection, worth a retry. */
export class MalformedListError extends Error {}

export class ListScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Between the `[` and the `]` of the top-level `items`. */
  private inItems = false;
  private itemsSeen = false;
  private items = 0;
  private readonly envelope: Buffer[] = [];
  /** Pieces of the element being read, from earlier chunks. */
  private element: Buffer[] = [];

  constructor(private readonly onItem: (item: unknown) => void) {}

  write(chunk: Buffer): void {
    let from = 0;
    // Most bytes are inside strings (scripts, messages): jump over them with indexOf, keeping
    // the next backslash's place so that a chunk is searched for one only once.
    let nextBackslash = -1;
    for (let i = 0; i < chunk.length; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (nextBackslash < i) nextBackslash = indexOrEnd(chunk, BACKSLASH, i);
        const quote = indexOrEnd(chunk, QUOTE, i);
        if (nextBackslash < quote) {
          i = nextBackslash;
          this.escaped = true;
        } else {
          i = quote;
          this.inString = quote === chunk.length;
        }
        continue;
      }
      const byte = chunk[i];
      if (byte === QUOTE) {
        this.inString = true;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        this.depth++;
        if (byte === OPEN_BRACKET && this.depth === ITEMS_DEPTH && !this.inItems && !this.itemsSeen && this.afterItemsKey(chunk.subarray(from, i))) {
          this.envelope.push(chunk.subarray(from, i + 1));
          from = i + 1;
          this.inItems = true;
          this.itemsSeen = true;
        }
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (this.inItems && this.depth === ITEMS_DEPTH) {
          this.endElement(chunk.subarray(from, i), true);
          this.inItems = false;
          from = i;
        }
        this.depth--;
        if (this.depth < 0) throw new MalformedListError('unbalanced brackets');
      } else if (byte === COMMA && this.inItems && this.depth === ITEMS_DEPTH) {
        this.endElement(chunk.subarray(from, i), false);
        from = i + 1;
      }
    }
    if (from < chunk.length) (this.inItems ? this.element : this.envelope).push(chunk.subarray(from));
  }

  /** The envelope with `items` emptied; throws MalformedListError if the answer was incomplete. */
  end(): unknown {
    if (this.depth !== 0 || this.inString || this.inItems) throw new MalformedListError('the answer ended in the middle of a value');
    return parse(Buffer.concat(this.envelope));
  }

  private afterItemsKey(current: Buffer): boolean {
    // Only the last bytes matter: `"items":` and some whitespace.
    const parts = [current];
    let length = current.length;
    for (let k = this.envelope.length - 1; k >= 0 && length < TAIL_BYTES; k--) {
      const part = this.envelope[k] as Buffer;
      parts.unshift(part);
      length += part.length;
    }
    const tail = Buffer.concat(parts);
    return ITEMS_KEY.test(tail.subarray(Math.max(0, tail.length - TAIL_BYTES)).toString('latin1'));
  }

  private endElement(last: Buffer, closing: boolean): void {
    const pieces = this.element;
    pieces.push(last);
    this.element = [];
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    // `[]`, and only that, has no element at all.
    if (closing && this.items === 0 && isBlank(bytes)) return;
    this.items++;
    this.onItem(parse(bytes));
  }
}

function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const index = chunk.indexOf(byte, from);
  return index === -1 ? chunk.length : index;
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  }
  return true;
}

function parse(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw new MalformedListError(error instanceof Error ? error.message : String(error));
  }
}
