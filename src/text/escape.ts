/**
 * Text from the cluster (names, label and annotation values quoted in messages, run names
 * read from specs) is written by anyone who may label a PipelineResource or create a run,
 * and it reaches a terminal, a log and a pull-request comment. A terminal acts on control
 * characters: `ESC ] 0 ; … BEL` retitles it, `ESC [ 2 J` clears it, and a C1 CSI (U+009B)
 * does the same on terminals that honour 8-bit controls (the class of kubectl's
 * CVE-2021-25743, https://github.com/kubernetes/kubernetes/issues/101695). Bidirectional
 * controls reorder what a reader sees without changing what is there ("Trojan Source",
 * CVE-2021-42574, https://trojansource.codes).
 *
 * So every renderer shows those characters as escapes instead of writing them: the output
 * stays safe to print, and the operator sees that something odd was there.
 */

/**
 * The characters written as escapes: Unicode's Cc (C0 U+0000–U+001F, DEL U+007F, C1
 * U+0080–U+009F) and Bidi_Control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069),
 * that is `/[\p{Cc}\p{Bidi_Control}]/u`, spelt out: three times faster over a 35 MB report.
 */
export const UNSAFE_CHARACTERS = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `\x1b` for C0 and DEL, `\u009b` for C1 and `\u202e` for bidirectional controls: the
 * notation of JavaScript, JSON and most shells, so what was there can be looked up and
 * typed back. Line breaks are escaped too (`\x0a`); a renderer that wants them as spaces
 * folds them first.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (char) => {
    const code = char.charCodeAt(0);
    return code < 0x20 || code === 0x7f ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
  });
}

/** UNSAFE_CHARACTERS but JSON's whitespace: tab, line feed and carriage return. */
const UNSAFE_IN_JSON = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The same characters in JSON text (a report, a log line) as `\u` escapes. JSON.stringify
 * escapes C0 already but writes DEL, C1 and bidirectional controls as they are. Outside
 * strings JSON holds none of them but its whitespace (the line feeds of pretty printing),
 * which is left alone, and inside strings an escape means the same character: the text
 * parses back to exactly the same values.
 */
export function escapeControlsInJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (char) => `\\u${hex(char.charCodeAt(0), 4)}`);
}

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}
