/**
 * URLs as they may be logged or shown: without the credentials they can carry. A
 * Pushgateway behind basic auth is given as `https://user:password@host`, and signed or
 * token-bearing URLs carry their secret in the query; logs and error messages keep neither.
 */

/** Query parameters whose values are credentials: tokens, keys, signatures, passwords. */
const SECRET_PARAMETER = /token|secret|passw|pwd|key|sig|auth|credential|session/i;

const REDACTED = 'REDACTED';

/** `text` with its userinfo and secret query values replaced; unchanged when it is not a URL or holds none. */
export function redactUrl(text: string): string {
  if (!URL.canParse(text)) return text;
  const url = new URL(text);
  let redacted = false;
  if (url.username !== '' || url.password !== '') {
    url.username = REDACTED;
    url.password = '';
    redacted = true;
  }
  for (const name of new Set(url.searchParams.keys())) {
    if (!SECRET_PARAMETER.test(name)) continue;
    url.searchParams.set(name, REDACTED);
    redacted = true;
  }
  return redacted ? url.toString() : text;
}

/**
 * A value as a message quotes it. JSON quoting keeps a message on one line whatever the
 * value holds; a URL's credentials stay out of it (a Pushgateway URL with a password that
 * fails to parse is still secret).
 */
export function quote(text: string): string {
  return JSON.stringify(redactUrl(text));
}
