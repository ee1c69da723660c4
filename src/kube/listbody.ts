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
 *
 * A caller may also leave out members no reader looks at (`omit`): the object or array value of
 * a member of an item's top-level object member (`status.pipelineSpec`) is replaced by `null`
 * as its bytes go by, so it is never decoded. A PipelineRun's status copies its whole pipeline
 * spec and every task's state, most of its bytes; parsed, it was most of what a pass allocated.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The top-level object's members are at depth 1, the items array's elements at depth 2. */
const ITEMS_DEPTH = 2;
const ITEMS_KEY = /"items"\s*:\s*$/;
const TAIL_BYTES = 64;
/** An item's own members are at depth 3, those of its members' objects at depth 4. */
const ITEM_DEPTH = 3;
const MEMBER_DEPTH = 4;
/** Longer keys are not read: nothing is left out under them. */
const MAX_KEY_BYTES = 64;
const NULL = Buffer.from('null');

/**
 * Whether to leave out the value of `item[parent][key]` when it is an object or an array (a
 * string or number is always kept). Keys are compared as written: one with an escape (`\u…`)
 * is never left out, nor anything under it.
 */
export type OmitMember = (parent: string, key: string) => boolean;

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
  /** With `omit`: the string being read at depth 3 or 4 (a key, when a colon follows), and the keys in force. */
  private text: Buffer[] | undefined;
  private textStart = -1;
  /** The last string read at depth 3 or 4 (null: long or escaped, a key that matches nothing); undefined after any other token. */
  private lastText: string | null | undefined;
  private parentKey: string | undefined;
  private memberKey: string | undefined;
  /** Inside a value left out: its bytes are scanned, not kept. */
  private omitting = false;

  constructor(
    private readonly onItem: (item: unknown) => void,
    private readonly omit?: OmitMember,
  ) {}

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
          if (!this.inString && this.text !== undefined) this.endText(chunk, quote);
        }
        continue;
      }
      const byte = chunk[i];
      if (byte === QUOTE) {
        this.inString = true;
        if (this.omit !== undefined && this.inItems && !this.omitting && (this.depth === ITEM_DEPTH || this.depth === MEMBER_DEPTH)) {
          this.text = [];
          this.textStart = i + 1;
        }
      } else if (byte === COLON) {
        if (this.lastText !== undefined && this.inItems && !this.omitting) {
          if (this.depth === ITEM_DEPTH) this.parentKey = this.lastText ?? undefined;
          else if (this.depth === MEMBER_DEPTH) this.memberKey = this.lastText ?? undefined;
        }
        this.lastText = undefined;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        if (this.omit !== undefined && this.inItems && !this.omitting) {
          if (this.depth === ITEMS_DEPTH) this.parentKey = undefined;
          if (this.depth === ITEM_DEPTH) this.memberKey = undefined;
          if (this.depth === MEMBER_DEPTH && this.parentKey !== undefined && this.memberKey !== undefined && this.omit(this.parentKey, this.memberKey)) {
            // The value's bytes up to its end are dropped, `null` stands for them.
            this.element.push(chunk.subarray(from, i), NULL);
            this.omitting = true;
          }
        }
        this.lastText = undefined;
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
        if (this.omitting && this.depth === MEMBER_DEPTH) {
          this.omitting = false;
          from = i + 1;
        }
        this.lastText = undefined;
      } else if (byte === COMMA) {
        if (this.inItems && this.depth === ITEMS_DEPTH) {
          this.endElement(chunk.subarray(from, i), false);
          from = i + 1;
        }
        if (this.depth === ITEM_DEPTH) this.parentKey = undefined;
        if (this.depth === MEMBER_DEPTH) this.memberKey = undefined;
        this.lastText = undefined;
      }
    }
    if (this.text !== undefined && this.inString) {
      // A key cut by the chunk's end: its first part.
      this.text.push(chunk.subarray(Math.max(this.textStart, 0)));
      this.textStart = 0;
    }
    if (this.omitting) return;
    if (from < chunk.length) (this.inItems ? this.element : this.envelope).push(chunk.subarray(from));
  }

  /** The string read at depth 3 or 4 ended at `quote`: it is a key if a colon follows. */
  private endText(chunk: Buffer, quote: number): void {
    const pieces = this.text ?? [];
    pieces.push(chunk.subarray(Math.max(this.textStart, 0), quote));
    this.text = undefined;
    this.textStart = -1;
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    // A long or escaped key matches nothing (so nothing under it is left out).
    this.lastText = bytes.length > MAX_KEY_BYTES || bytes.includes(BACKSLASH) ? null : bytes.toString('utf8');
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
