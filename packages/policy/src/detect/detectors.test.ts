import { describe, expect, it } from 'vitest';
import { BUILTIN_DETECTORS, actionStrictness, compileCustom, scanText, type Detector } from './index.js';

const all = Object.values(BUILTIN_DETECTORS);
const found = (text: string, detectors: readonly Detector[] = all) => scanText(text, detectors).map((f) => [f.entity, text.slice(f.start, f.end)]);

describe('built-in detectors find what they name', () => {
  it.each([
    ['email', 'write to bob.smith+tag@mail.example.co.uk.', 'bob.smith+tag@mail.example.co.uk'],
    ['email', '<alice@acme.io>', 'alice@acme.io'],
    ['phone', 'call +1 415 555 2671 now', '+1 415 555 2671'],
    ['phone', 'call +14155552671', '+14155552671'],
    ['phone', 'call (415) 555-2671', '(415) 555-2671'],
    ['phone', 'call 1-415-555-2671', '1-415-555-2671'],
    ['phone', 'call 415.555.2671', '415.555.2671'],
    ['phone', 'ring 020 7946 0958', '020 7946 0958'],
    ['phone', 'appelez 01 23 45 67 89', '01 23 45 67 89'],
    ['phone', 'ring +44 (0)20 7946 0958', '+44 (0)20 7946 0958'],
    ['credit_card', 'card 4111 1111 1111 1111 exp 12/29', '4111 1111 1111 1111'],
    ['credit_card', 'card 4111-1111-1111-1111', '4111-1111-1111-1111'],
    ['credit_card', 'amex 378282246310005', '378282246310005'],
    ['credit_card', 'card 4111_1111_1111_1111 ok', '4111_1111_1111_1111'],
    ['credit_card', 'card 4111.1111.1111.1111.', '4111.1111.1111.1111'],
    ['credit_card', 'card 4111/1111/1111/1111', '4111/1111/1111/1111'],
    ['credit_card', 'amex 3782_822463_10005', '3782_822463_10005'],
    ['credit_card', 'tool get_4111111111111111', '4111111111111111'],
    ['credit_card', 'mc 5555555555554444', '5555555555554444'],
    ['credit_card', 'mc2 2223003122003222', '2223003122003222'],
    ['iban', 'pay DE89 3704 0044 0532 0130 00 today', 'DE89 3704 0044 0532 0130 00'],
    ['iban', 'pay GB82WEST12345698765432', 'GB82WEST12345698765432'],
    ['iban', 'pay NO9386011117947.', 'NO9386011117947'],
    ['us_ssn', 'ssn 536-22-1234', '536-22-1234'],
    ['us_ssn', 'ssn 536 22 1234', '536 22 1234'],
    ['ipv4', 'host 192.168.1.20.', '192.168.1.20'],
    ['ipv4', 'host 8.8.8.8', '8.8.8.8'],
    ['ipv6', 'host 2001:db8:85a3::8a2e:370:7334', '2001:db8:85a3::8a2e:370:7334'],
    ['ipv6', 'host fe80::1.', 'fe80::1'],
    ['ipv6', 'host ::ffff:192.0.2.128', '::ffff:192.0.2.128'],
    ['ipv6', 'full 2001:0db8:0000:0000:0000:ff00:0042:8329', '2001:0db8:0000:0000:0000:ff00:0042:8329'],
    ['secret', 'key sk-proj-abc123DEF456ghi789JKL0mno', 'sk-proj-abc123DEF456ghi789JKL0mno'],
    ['secret', 'key sk-ant-api03-AbCdEf0123456789xyz_-QQ', 'sk-ant-api03-AbCdEf0123456789xyz_-QQ'],
    ['secret', 'aws AKIAIOSFODNN7EXAMPLE', 'AKIAIOSFODNN7EXAMPLE'],
    ['secret', 'gh ghp_0123456789abcdefghijABCDEFGHIJ012345', 'ghp_0123456789abcdefghijABCDEFGHIJ012345'],
    ['secret', 'slack xoxb-123456789012-abcdefABCDEF', 'xoxb-123456789012-abcdefABCDEF'],
    ['secret', 'google AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIzaSyA1234567890abcdefghijklmnopqrstuv'],
    [
      'secret',
      'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ],
  ])('%s in %j', (entity, text, value) => {
    expect(found(text)).toEqual([[entity, value]]);
  });

  it('finds a PEM private key block whole, header to footer', () => {
    const pem =
      '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA PRIVATE KEY-----';
    expect(found(`here:\n${pem}\nthanks`)).toEqual([['secret', pem]]);
  });

  it('finds several values of several kinds in order, none overlapping', () => {
    expect(found('a@b.io 4111111111111111 10.0.0.1 c@d.org').map(([e]) => e)).toEqual(['email', 'credit_card', 'ipv4', 'email']);
  });
});

describe('false positives: checksums and number plans keep ordinary text clean', () => {
  it.each([
    ['an order number that fails Luhn', 'order 4111 1111 1111 1112'],
    ['a 16-digit id that fails Luhn', 'id 1234567812345678'],
    ['a Luhn-valid number with no card issuer prefix', 'ref 0000000000000000 and 9999999999999995'],
    ['a digit run longer than any card', 'trace 41111111111111111111111'],
    ['an IBAN with a wrong check', 'DE88 3704 0044 0532 0130 00'],
    ['an IBAN of the wrong length', 'DE89 3704 0044 0532 0130 0'],
    ['an IBAN of an unknown country', 'ZZ89370400440532013000'],
    ['SSN area 000', '000-12-3456'],
    ['SSN area 666', '666-12-3456'],
    ['SSN area 9xx', '912-12-3456'],
    ['SSN group 00', '536-00-1234'],
    ['SSN serial 0000', '536-22-0000'],
    ['an advertised SSN', '078-05-1120'],
    ['a date', '2024-01-15 and 15.01.2024 and 01/15/2024'],
    ['a time', 'at 10:30:45 or 10:30'],
    ['a MAC address', '00:1A:2B:3C:4D:5E'],
    ['C++ scope', 'std::vector<int> and Foo::bar'],
    ['a version', 'v1.2.3.4 and 1.2.3.4.5 and 10.0.19041.1'],
    ['an octet out of range', '256.1.1.1'],
    ['a bare 10-digit number', 'invoice 4155552671'],
    ['an area code starting with 1', '155-555-2671'],
    ['a phone-like run that is too long', '+1 415 555 2671 1234 5678'],
    ['a library name', 'pip install sk-learn-tools-and-more-stuff'],
    ['a word ending in sk-', 'task-0123456789abcdefghijklmnop'],
    ['an email without a TLD', 'user@localhost and a@b'],
    ['an at-sign alone', 'meet @ noon, @handle'],
    ['plain prose', 'The quick brown fox jumps over the lazy dog 42 times in 2024.'],
    ['numeric literals with underscores', 'const n = 1_000_000_000_000_000 + 5_000_000_000_000_0;'],
    ['snake-case dates and counters', 'backup_2024_01_15_123456.tar and run_20240115_4111'],
    ['a long decimal', 'pi 3.14159265358979 and x 5.1234567890123 and 4.4408920985006'],
    ['a dotted number with a long group', '4111.1111111.1111.111'],
    ['an OID', '1.3.6.1.4.1.4111.1111.1111.1111'],
    ['a date path', 'logs/2024/01/15/4111.log'],
    ['a hex hash with digits', 'sha 4111111111111111abcdef and deadbeef4111111111111111'],
  ])('%s', (_what, text) => {
    expect(found(text)).toEqual([]);
  });
});

describe('custom patterns', () => {
  it('find an organisation’s identifiers with flags', () => {
    const c = compileCustom({ id: 'employee_id', pattern: 'emp-[0-9]{6}', flags: 'i' });
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    expect(found('by EMP-123456 and emp-654321, not EMP-12', [c.detector])).toEqual([
      ['employee_id', 'EMP-123456'],
      ['employee_id', 'emp-654321'],
    ]);
  });

  it.each([
    ['a pattern that does not compile', { pattern: '(unclosed' }, 'pattern'],
    ['lookaround (not RE2)', { pattern: '(?<=x)y' }, 'pattern'],
    ['a backreference (not RE2)', { pattern: '(a)\\1' }, 'pattern'],
    ['a pattern matching the empty string', { pattern: 'x*' }, 'pattern'],
    ['a zero-width pattern', { pattern: '\\b' }, 'pattern'],
    ['an unknown flag', { pattern: 'x', flags: 'g' }, 'flags'],
  ])('refuse %s', (_what, spec, path) => {
    const c = compileCustom({ id: 'x', ...spec });
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.path).toBe(path);
  });
});

describe('overlapping values: the stricter action wins', () => {
  const actions: Record<string, string> = { credit_card: 'block', us_ssn: 'block', phone: 'redact' };
  const strictness = (entity: string) => actionStrictness(actions[entity] ?? 'log');
  const ranked = (text: string) => scanText(text, all, strictness).map((f) => [f.entity, text.slice(f.start, f.end)]);

  it.each([
    ['a card glued into an email', 'pay 4111-1111-1111-1111.x@acme.io', [['credit_card', '4111-1111-1111-1111']]],
    ['an SSN glued into an email', 'ssn 536-22-1234@acme.io', [['us_ssn', '536-22-1234']]],
    ['a phone glued into an email', 'ring 415-555-2671@acme.io', [['phone', '415-555-2671']]],
  ])('%s is reported as the stricter entity', (_what, text, expected) => {
    // Without the actions, the longer email hides it.
    expect(found(text).map(([e]) => e)).toEqual(['email']);
    expect(ranked(text)).toEqual(expected);
  });

  it('keeps laxer findings that overlap nothing stricter, in text order', () => {
    expect(ranked('a@b.io 4111-1111-1111-1111.x@acme.io 10.0.0.1 c@d.org').map(([e]) => e)).toEqual(['email', 'credit_card', 'ipv4', 'email']);
  });

  it('ranks the actions: block over redact and pseudonymize over log over allow', () => {
    expect(['allow', 'log', 'pseudonymize', 'redact', 'block'].map(actionStrictness)).toEqual([0, 1, 2, 2, 3]);
  });
});

describe('disguised values: detectors read a folded view, spans are the original text', () => {
  const zw = (s: string, c = '\u200b') => [...s].join(c);
  it.each([
    ['full-width digits', 'card \uff14\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 \uff11\uff11\uff11\uff11 ok', 'credit_card'],
    ['zero-width spaces in a card', `card ${zw('4111111111111111')}.`, 'credit_card'],
    ['word joiners and soft hyphens in a card', `card 4111\u20601111\u00ad1111\ufeff1111`, 'credit_card'],
    ['a zero-width space in an email', 'mail jane.doe\u200b@acme.io', 'email'],
    ['a full-width at sign', 'mail jane.doe\uff20acme.io', 'email'],
    ['en dashes in an SSN', 'ssn 536\u201322\u20131234', 'us_ssn'],
    ['no-break spaces in a phone', 'call +1\u00a0415\u00a0555\u00a02671', 'phone'],
  ])('%s', (_what, text, entity) => {
    const [f, ...rest] = scanText(text, all);
    expect(rest).toEqual([]);
    expect(f?.entity).toBe(entity);
    // The span is the whole disguised value in the original text, nothing around it.
    const value = text.slice(f!.start, f!.end);
    expect(text.startsWith(value, f!.start)).toBe(true);
    expect(/^[\s.a-z]*$/.test(text.slice(0, f!.start)) && /^[\s.a-z]*$/.test(text.slice(f!.end))).toBe(true);
  });

  it('keeps other non-ASCII text as it is: no finding, spans after it stay right', () => {
    const text = 'café 🌦️ naïve — 4111 1111 1111 1111, ①②';
    expect(found(text)).toEqual([['credit_card', '4111 1111 1111 1111']]);
  });
});
