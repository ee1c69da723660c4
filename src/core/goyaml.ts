/**
 * YAML read as tektoncd/pruner reads its ConfigMaps, with js-yaml and a schema of our own.
 * pruner decodes them with k8s.io/apimachinery's yaml.Unmarshal (pkg/config/config.go:26,
 * 136, 165), which is sigs.k8s.io/yaml v1.6.0 (yaml.go:55): go-yaml v2 (go.yaml.in/yaml/v2
 * v2.4.3) reads the YAML into plain Go values, which are turned into JSON and decoded into
 * pruner's structs by encoding/json. Every citation is to those modules as tektoncd/pruner
 * v0.4.1 vendors them. What that gives, and how this differs from js-yaml's CORE_SCHEMA:
 *
 * - A plain scalar is resolved by go-yaml v2's table (resolve.go:20-57, 86-197), not YAML
 *   1.2's: `y`, `Y`, `yes`, `on` and their capitalised forms are true, `n`, `no`, `off` false;
 *   `~`, `null` and nothing are null; `.inf`, `.nan`; an integer is what Go's strconv.ParseInt
 *   with base 0 reads once every `_` is removed (so `010` is 8, `0o17` 15, `0x1F` 31, `0b101`
 *   5, `1_000` 1000), else a uint64, else a float by go-yaml's pattern (`08` is the float 8),
 *   and `0b-1` is -1 (resolve.go:169-181). Not YAML 1.1 either: no sexagesimal (`1:20` stays
 *   text, resolve.go:124-126), and timestamps stay text (decode.go:474-480). Quoted and block
 *   scalars are text (decode.go:414-416), and so is `!!str`; `!!int`, `!!float`, `!!bool`,
 *   `!!null` resolve as go-yaml resolves them under that tag (resolve.go:91-110).
 * - A value decoded into one of pruner's string fields (a name, a label or annotation value,
 *   the level) is the text sigs.k8s.io/yaml makes of it (yaml.go:329-355): `true`/`false`, an
 *   integer's decimal digits; null is the empty string. A float there becomes the text of its
 *   float32 (`strconv.FormatFloat(v, 'g', -1, 32)`), which is not reproduced here: it is
 *   refused (goText), with the quoted form to write.
 * - A mapping key is text the same way (yaml.go:205-249): a bool or an integer its text; a
 *   null or a uint64 key is an error in pruner too; a float key (float32 text again) and a
 *   merge key `<<` (go-yaml merges in place, decode.go:661-664, 786-811, where js-yaml keeps
 *   the keys written before it) are refused. So these keys become marker texts (refusedKey)
 *   that the reader refuses with their path.
 * - A key written twice: the last one wins, as go-yaml v2's Unmarshal (not UnmarshalStrict)
 *   sets it (decode.go:685-691): js-yaml's `json` mode.
 * - Only one document: go-yaml reads the first and ignores the rest (go-yaml yaml.go:137-150:
 *   one p.parse()), unparsed; js-yaml refuses a second one, and so does this, in one line. A `%YAML`
 *   directive other than 1.1 is refused by go-yaml (“found incompatible YAML document”,
 *   parserc.go:1034), and here too. A tag go-yaml reads and js-yaml does not know (`!!binary`, `!!timestamp`, a
 *   local `!tag`) is refused by js-yaml's “unknown tag”.
 *
 * - js-yaml ends a text that has no final line break with one (loader.js, loadDocuments), so a
 *   block scalar (`|`, `>`) that ends such a text would read with a line break go-yaml does
 *   not give it: refused, with the two ways to write it. A ConfigMap's `ns-config: |` ends with
 *   a line break, so its last value never does this.
 *
 * The forms were checked by running both: the table of test/unit/goyaml.test.ts is what
 * sigs.k8s.io/yaml v1.6.0 gave for each.
 */
import yaml from 'js-yaml';

/** A marker key: the start of the text a refused key becomes (no YAML text starts so: NUL is not printable). */
const MARK = '\u0000go-yaml:';

type KeyProblem = 'null' | 'uint64' | 'float' | 'merge';

const KEY_PROBLEMS: Readonly<Record<KeyProblem, string>> = {
  null: 'a null key (~, null or nothing), which tektoncd/pruner refuses (sigs.k8s.io/yaml yaml.go:246-248)',
  uint64: 'a key above 9223372036854775807, which tektoncd/pruner refuses (sigs.k8s.io/yaml yaml.go:246-248)',
  float: 'a float as a key, which tektoncd/pruner reads as the text of its float32; quote the key as it should read',
  merge: 'a merge key (<<), which tektoncd/pruner applies in place and this does not; write the fields out',
};

/** The problem of a key that is one of these markers; undefined for any other key. */
export function refusedKey(key: string): string | undefined {
  if (!key.startsWith(MARK)) return undefined;
  const problem = key.slice(MARK.length, key.indexOf(':', MARK.length)) as KeyProblem;
  return `${KEY_PROBLEMS[problem]} (written ${key.slice(key.indexOf(':', MARK.length) + 1)})`;
}

/**
 * A scalar js-yaml would otherwise give as a plain value that a Go target reads differently.
 * As a key, js-yaml turns it into text with toString (it does so for any object carrying
 * Symbol.toStringTag): the key's text in pruner, or a marker refusedKey names.
 */
export abstract class GoScalar {
  abstract readonly [Symbol.toStringTag]: string;
  constructor(readonly text: string) {}
  protected marker(problem: KeyProblem): string {
    return `${MARK}${problem}:${this.text}`;
  }
}

/** A float64 of go-yaml: kept apart from the integers, which a Go string field reads as digits. */
export class GoFloat extends GoScalar {
  readonly [Symbol.toStringTag] = 'GoFloat';
  constructor(
    readonly value: number,
    text: string,
  ) {
    super(text);
  }
  override toString(): string {
    return this.marker('float');
  }
}

/** An integer beyond 2^53 (a JavaScript number would round it): an int64, or a uint64 above its range. */
export class GoBigInt extends GoScalar {
  readonly [Symbol.toStringTag] = 'GoBigInt';
  constructor(
    readonly value: bigint,
    text: string,
  ) {
    super(text);
  }
  get unsigned(): boolean {
    return this.value > INT64_MAX;
  }
  override toString(): string {
    return this.unsigned ? this.marker('uint64') : this.value.toString();
  }
}

/** Null and `<<` as js-yaml holds them while it builds mappings; loadGoYaml gives null and "<<" in their place. */
class GoKeyword extends GoScalar {
  readonly [Symbol.toStringTag] = 'GoKeyword';
  constructor(
    readonly keyword: 'null' | 'merge',
    text: string,
  ) {
    super(text);
  }
  override toString(): string {
    return this.marker(this.keyword);
  }
}

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

type Resolved =
  | { tag: 'null' }
  | { tag: 'bool'; value: boolean }
  | { tag: 'int'; value: bigint }
  | { tag: 'float'; value: number }
  | { tag: 'str' };

/** resolve.go:20-49: the words resolved by lookup. */
const WORDS = new Map<string, Resolved>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((word): [string, Resolved] => [word, { tag: 'bool', value: true }]),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((word): [string, Resolved] => [word, { tag: 'bool', value: false }]),
  ...['', '~', 'null', 'Null', 'NULL'].map((word): [string, Resolved] => [word, { tag: 'null' }]),
  ...['.nan', '.NaN', '.NAN'].map((word): [string, Resolved] => [word, { tag: 'float', value: Number.NaN }]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((word): [string, Resolved] => [word, { tag: 'float', value: Number.POSITIVE_INFINITY }]),
  ...['-.inf', '-.Inf', '-.INF'].map((word): [string, Resolved] => [word, { tag: 'float', value: Number.NEGATIVE_INFINITY }]),
  // `<<` is in the table too (resolve.go:48), but its first character has no hint
  // (resolve.go:114-118), so it resolves as text: a key `<<` merges by its text alone (mergeType).
]);

/** resolve.go:84. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** A decimal float starting with `.` as Go's strconv.ParseFloat reads one, `_` between digits (atof.go, underscoreOK). */
const GO_DOT_FLOAT = /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/;
const STR: Resolved = { tag: 'str' };

/** How go-yaml v2 resolves a plain scalar without a tag (resolve.go:86-197). */
export function resolvePlain(text: string): Resolved {
  const first = text.charAt(0);
  // resolve.go:114-118: a first character outside the table is text without a look.
  const hint = text === '' ? 'N' : /[-+]/.test(first) ? 'S' : /[0-9]/.test(first) ? 'D' : 'yYnNtTfFoO~'.includes(first) ? 'M' : first === '.' ? '.' : '';
  if (hint === '') return STR;
  const word = WORDS.get(text);
  if (word !== undefined) return word;
  if (hint === 'M') return STR;
  if (hint === '.') return GO_DOT_FLOAT.test(text) ? finiteFloat(text.replaceAll('_', '')) : STR;
  // resolve.go:139-191. A timestamp is tried first, and goes to text (decode.go:474-480); it
  // never reads as a number (four digits and a '-'), so it needs no case of its own.
  const plain = text.replaceAll('_', '');
  const signed = parseGoInt(plain, 0);
  if (signed !== undefined) return { tag: 'int', value: signed };
  const unsigned = parseGoUint(plain, 0);
  if (unsigned !== undefined) return { tag: 'int', value: unsigned };
  if (YAML_STYLE_FLOAT.test(plain)) {
    const float = finiteFloat(plain);
    if (float.tag === 'float') return float;
  }
  if (plain.startsWith('0b')) {
    const binary = parseGoInt(plain.slice(2), 2) ?? parseGoUint(plain.slice(2), 2);
    if (binary !== undefined) return { tag: 'int', value: binary };
  } else if (plain.startsWith('-0b')) {
    const binary = parseGoInt(`-${plain.slice(3)}`, 2);
    if (binary !== undefined) return { tag: 'int', value: binary };
  }
  return STR;
}

/** strconv.ParseFloat: a value beyond float64's range is an error (ErrRange), and the scalar text. */
function finiteFloat(text: string): Resolved {
  const value = Number(text);
  return Number.isFinite(value) ? { tag: 'float', value } : STR;
}

/** strconv.ParseInt(text, base, 64), `_` already removed: undefined where it fails. */
function parseGoInt(text: string, base: 0 | 2): bigint | undefined {
  const negative = text.startsWith('-');
  const magnitude = parseGoUint(negative || text.startsWith('+') ? text.slice(1) : text, base);
  if (magnitude === undefined) return undefined;
  if (negative) return magnitude <= INT64_MAX + 1n ? -magnitude : undefined;
  return magnitude <= INT64_MAX ? magnitude : undefined;
}

/** strconv.ParseUint(text, base, 64): base 0 reads the prefixes 0b, 0o, 0x and a leading 0 as octal. */
function parseGoUint(text: string, base: 0 | 2): bigint | undefined {
  if (text === '') return undefined;
  let radix = base === 0 ? 10 : base;
  let digits = text;
  if (base === 0 && text.startsWith('0')) {
    const prefix = text.length >= 3 ? text.charAt(1).toLowerCase() : '';
    radix = prefix === 'b' ? 2 : prefix === 'o' ? 8 : prefix === 'x' ? 16 : 8;
    digits = text.slice(prefix === 'b' || prefix === 'o' || prefix === 'x' ? 2 : 1);
  }
  let value = 0n;
  for (const char of digits) {
    const digit = Number.parseInt(char, 36);
    if (Number.isNaN(digit) || digit >= radix) return undefined;
    value = value * BigInt(radix) + BigInt(digit);
    if (value > UINT64_MAX) return undefined;
  }
  return value;
}

/** An integer as js-yaml hands it on: a number while exact, else a GoBigInt. */
function integer(value: bigint, text: string): number | GoBigInt {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : new GoBigInt(value, text);
}

/** The last scalar resolved: js-yaml asks each implicit type in turn about the same text. */
let last: { text: string; resolved: Resolved } = { text: '', resolved: { tag: 'null' } };

function resolved(data: unknown): Resolved | undefined {
  if (typeof data !== 'string') return data === null ? { tag: 'null' } : undefined;
  if (last.text !== data) last = { text: data, resolved: resolvePlain(data) };
  return last.resolved;
}

function scalarType(tag: string, accepts: (value: Resolved) => boolean, construct: (value: Resolved, text: string) => unknown): yaml.Type {
  return new yaml.Type(tag, {
    kind: 'scalar',
    resolve: (data: unknown) => {
      const value = resolved(data);
      return value !== undefined && accepts(value);
    },
    construct: (data: unknown) => construct(resolved(data) ?? STR, typeof data === 'string' ? data : ''),
  });
}

const nullType = scalarType('tag:yaml.org,2002:null', (value) => value.tag === 'null', (_, text) => new GoKeyword('null', text));
const boolType = scalarType(
  'tag:yaml.org,2002:bool',
  (value) => value.tag === 'bool',
  (value) => value.tag === 'bool' && value.value,
);
const intType = scalarType(
  'tag:yaml.org,2002:int',
  (value) => value.tag === 'int',
  (value, text) => (value.tag === 'int' ? integer(value.value, text) : 0),
);
// `!!float 1` is the float 1; a uint64 under !!float is refused by go-yaml (resolve.go:95-109).
const floatType = scalarType(
  'tag:yaml.org,2002:float',
  (value) => value.tag === 'float' || (value.tag === 'int' && value.value <= INT64_MAX),
  (value, text) => new GoFloat(value.tag === 'float' ? value.value : value.tag === 'int' ? Number(value.value) : 0, text),
);
// A plain `<<` merges as a key (decode.go:813-815: by its text, while it resolves as text), under
// a tag of its own rather than js-yaml's merge: the key is refused (refusedKey), not merged the
// js-yaml way; as a value it is the text "<<" (plainKeywords).
const mergeType = new yaml.Type('tag:tekton-resource-gc.io,2026:go-yaml-merge-key', {
  kind: 'scalar',
  resolve: (data: unknown) => data === '<<',
  construct: (data: unknown) => new GoKeyword('merge', String(data)),
});

/** The implicit types in go-yaml's order of precedence: an integer before a float. */
const GO_YAML_V2_SCHEMA = yaml.FAILSAFE_SCHEMA.extend({ implicit: [nullType, boolType, intType, floatType, mergeType] });

/** A document that cannot be read as pruner reads it: the YAML error, or a form refused here (one line). */
export class GoYamlError extends Error {}

/**
 * The document as pruner's decoder reads it: mappings of text keys (refused keys as markers,
 * refusedKey), text, booleans, integers (GoBigInt beyond 2^53), GoFloat, null and lists.
 */
export function loadGoYaml(text: string): unknown {
  const version = yamlDirective(text);
  if (version !== undefined && version !== '1.1') throw new GoYamlError(`a %YAML ${version} directive, which tektoncd/pruner refuses (go-yaml v2 reads YAML 1.1 only); remove it`);
  let document: unknown;
  // The last text scalar js-yaml closed, where the text has no final line break (see the module's comment).
  let lastText: { position: number; text: string } | undefined;
  const unterminated = text !== '' && !/[\n\r]$/.test(text);
  try {
    document = yaml.load(text, {
      schema: GO_YAML_V2_SCHEMA,
      json: true,
      ...(unterminated && {
        listener: (event: yaml.EventType, state: yaml.State) => {
          if (event === 'close' && typeof state.result === 'string') lastText = { position: state.position, text: state.result };
        },
      }),
    });
  } catch (error) {
    if (!(error instanceof yaml.YAMLException)) throw error;
    if (error.reason.includes('expected a single document')) {
      throw new GoYamlError('more than one YAML document; tektoncd/pruner reads the first one only: remove the others');
    }
    throw new GoYamlError(`not YAML: ${error.reason} at line ${error.mark.line + 1}, column ${error.mark.column + 1}`);
  }
  // Only a block scalar reads past the end into the line break js-yaml added.
  if (lastText !== undefined && lastText.position > text.length && lastText.text.endsWith('\n')) {
    throw new GoYamlError('a block scalar (| or >) ends the text without a line break, which tektoncd/pruner reads without one at its end and this would read with one: end the text with a line break, or write the block with |- or >-');
  }
  return plainKeywords(document, new Set());
}

/** The version of a `%YAML` directive before the document, if any. */
function yamlDirective(text: string): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const directive = /^%YAML[ \t]+(\S+)/.exec(line);
    if (directive !== null) return directive[1];
    // Other directives (%TAG) may come first; anything else starts the document.
    if (!line.startsWith('%')) return undefined;
  }
  return undefined;
}

/** null and "<<" in place of the GoKeywords among the values, in place; a node an alias shares is visited once. */
function plainKeywords(value: unknown, seen: Set<object>): unknown {
  if (value instanceof GoKeyword) return value.keyword === 'null' ? null : '<<';
  if (typeof value !== 'object' || value === null || value instanceof GoScalar || seen.has(value)) return value;
  seen.add(value);
  const node = value as Record<string, unknown>;
  for (const key of Object.keys(node)) node[key] = plainKeywords(node[key], seen);
  return value;
}

/**
 * The text sigs.k8s.io/yaml makes of a scalar decoded into a Go string field (sigs.k8s.io/yaml
 * yaml.go:329-355; null leaves the field empty): `{ text }`, or `{ refused }` for a float, whose float32 text is
 * not reproduced; undefined for a list or a mapping.
 */
export function goText(value: unknown): { text: string } | { refused: string } | undefined {
  if (typeof value === 'string') return { text: value };
  if (value === null) return { text: '' };
  if (typeof value === 'boolean' || typeof value === 'number') return { text: String(value) };
  if (value instanceof GoBigInt) return { text: value.value.toString() };
  if (value instanceof GoFloat) return { refused: `the float ${value.text}, which tektoncd/pruner reads as the text of its float32; quote it as it should read, as ${JSON.stringify(value.text)}` };
  return undefined;
}

/** The number a JSON decoder gets for an integer or a float (sigs.k8s.io/yaml yaml.go:173-178: json.Marshal of the float64 or integer); undefined for anything else. */
export function goNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value instanceof GoFloat) return value.value;
  if (value instanceof GoBigInt) return Number(value.value);
  return undefined;
}
