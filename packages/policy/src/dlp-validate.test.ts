/** `dlp`, `tools.allow_lists` and `prompts`: every key the gateway would ignore is a validation error with its path. */
import { describe, expect, it } from 'vitest';
import { compileCustom } from './detect/index.js';
import { parsePolicy } from './index.js';
import { registry } from './__tests__/fixtures.js';

const check = (raw: unknown, entities: string[] = []) => {
  const r = parsePolicy(raw, { registry, dlp: { entities, compile: compileCustom } });
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
};

describe('validate: DLP, tool allow-lists, prompts', () => {
  it('accepts every new key when it means something', () => {
    expect(
      check(
        {
          dlp: {
            default: { email: 'pseudonymize', secret: 'block', employee_id: 'redact', '*': 'log' },
            use_cases: [{ id: 'support', match: { bus: ['support'] }, actions: { phone: 'allow', transcript: 'redact' } }],
            custom: [{ id: 'employee_id', pattern: 'EMP-[0-9]{6}', flags: 'i', max_length: 10 }],
            scan_responses: true,
          },
          tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_*'] }] },
          prompts: [{ id: 'conduct', version: 3, match: { scope: 'claude', formats: ['anthropic_messages'] }, text: 'Be kind.' }],
        },
        ['transcript'],
      ),
    ).toEqual([]);
  });

  it('lists every violation with its path', () => {
    expect(
      check({
        dlp: {
          default: { emial: 'redact', email: 'shred' },
          use_cases: [{ id: 'x', match: { users: [] }, actions: { ssn: 'block' } }],
          custom: [
            { id: 'ticket', pattern: '(?<=T)[0-9]+' },
            { id: 'empty', pattern: 'a*' },
            { id: 'email', pattern: 'x@y' },
            { id: 'ticket', pattern: 'TKT-[0-9]+', flags: 'g' },
          ],
        },
        tools: {
          allow_lists: [
            { id: 'none', match: { bus: [] }, allow: ['*'] },
            { id: 'exempt', match: { users: ['a'], exempt_users: ['a'] }, allow: ['x'] },
          ],
        },
        prompts: [
          { id: 'p', version: '1', match: { formats: ['openai_chat', 'bedrock'] }, text: 'hi' },
          { id: 'p', version: '2', text: '  ' },
          { id: 'q', version: '1', match: { scope: 'nope' }, text: 'x' },
        ],
      }),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^dlp\.default\.emial: unknown DLP entity "emial"/),
        expect.stringMatching(/^dlp\.default\.email: /),
        expect.stringMatching(/^dlp\.use_cases\[0\]\.actions\.ssn: unknown DLP entity "ssn"/),
        expect.stringMatching(/^dlp\.use_cases\[0\]\.match: "users: \[\]" matches nobody/),
        expect.stringMatching(/^dlp\.custom\[0\]\.pattern: does not compile/),
        expect.stringMatching(/^dlp\.custom\[1\]\.pattern: matches the empty string/),
        expect.stringMatching(/^dlp\.custom\[2\]\.id: "email" is a built-in entity type/),
        expect.stringMatching(/^dlp\.custom\[3\]\.id: duplicate custom DLP pattern id "ticket"/),
        expect.stringMatching(/^dlp\.custom\[3\]\.flags: /),
        expect.stringMatching(/^tools\.allow_lists\[0\]\.match: "bus: \[\]" matches nobody/),
        expect.stringMatching(/^tools\.allow_lists\[1\]\.match: every user it names is also in exempt_users/),
        expect.stringMatching(/^prompts\[0\]\.match\.formats\[1\]: unknown wire format "bedrock"/),
        expect.stringMatching(/^prompts\[1\]\.text: a prompt needs text/),
        expect.stringMatching(/^prompts\[2\]\.match\.scope: unknown scope "nope"/),
      ]),
    );
  });

  it('a duplicate prompt version is refused', () => {
    expect(
      check({
        prompts: [
          { id: 'p', version: 1, text: 'a' },
          { id: 'p', version: 1, text: 'b' },
        ],
      }),
    ).toEqual(['prompts[1].version: duplicate prompt "p@1" (first at index 0)']);
  });
});
