import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactUrl } from '../../src/text/redact.js';

describe('redactUrl', () => {
  const rows: [string, string, string][] = [
    // Credentials in the userinfo: user and password both go, the rest stays.
    ['basic auth', 'https://robot:s3cret@pushgateway.example.com:9091/gw', 'https://REDACTED@pushgateway.example.com:9091/gw'],
    ['a user alone (a token as user name)', 'https://ghp_abc123@example.com/', 'https://REDACTED@example.com/'],
    ['a password alone', 'http://:s3cret@gw:9091', 'http://REDACTED@gw:9091/'],
    ['percent-encoded', 'http://r%40bot:p%3Ass@gw:9091/', 'http://REDACTED@gw:9091/'],
    // Secret query values, whatever their case; others stay.
    ['a token in the query', 'https://example.com/push?access_token=abc&team=ci', 'https://example.com/push?access_token=REDACTED&team=ci'],
    ['signed URL parameters', 'https://b.example.com/o?X-Amz-Signature=f00&X-Amz-Credential=AKIA&x=1', 'https://b.example.com/o?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&x=1'],
    ['password and api key', 'https://example.com/?Password=p&apiKey=k', 'https://example.com/?Password=REDACTED&apiKey=REDACTED'],
    ['both at once', 'https://u:p@example.com/?token=t', 'https://REDACTED@example.com/?token=REDACTED'],
    // Nothing secret: the text as given, not even normalised.
    ['a plain address', 'http://pushgateway.monitoring:9091', 'http://pushgateway.monitoring:9091'],
    ['an API server', 'https://10.0.0.1:6443', 'https://10.0.0.1:6443'],
    ['a harmless query', 'https://example.com/x?team=ci', 'https://example.com/x?team=ci'],
    // Not URLs at all.
    ['a duration', '7d', '7d'],
    ['a selector', 'app=ci,env in (prod)', 'app=ci,env in (prod)'],
    ['an empty string', '', ''],
  ];
  for (const [why, text, expected] of rows) {
    it(`${why}: ${text}`, () => assert.equal(redactUrl(text), expected));
  }

  it('never leaves a secret of these rows in its answer', () => {
    for (const secret of ['s3cret', 'ghp_abc123', 'p%3Ass', 'f00', 'AKIA']) {
      for (const [, text] of rows) assert.ok(!redactUrl(text).includes(secret), `${text} -> ${redactUrl(text)}`);
    }
  });
});
