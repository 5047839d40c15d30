/** `tollgate validate` and `tollgate key create`: exit codes, every violation listed, output shapes. */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { IdentityConfigSchema } from '@tollgate/core';
import { REPO, runCli } from './cli-support.js';

function tempDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const VALID_REGISTRY = `
wire_formats: { openai_chat: { family: chat } }
entry_routes: [ { path: /v1/chat/completions, format: openai_chat } ]
credentials: { openai: { kind: bearer, secret: OPENAI_API_KEY } }
providers: { openai: { base_url: "https://api.openai.com", credential: openai } }
operations: [ { provider: openai, format: openai_chat, family: chat, path: /v1/chat/completions } ]
models:
  gpt-mini:
    brand: openai
    entry_formats: [openai_chat]
    deployments:
      - { id: mini@openai, provider: openai, format: openai_chat, upstream_model: gpt-4o-mini,
          pricing: { unit: usd_per_mtok, input: "0.15", output: "0.60" } }
`;

describe('tollgate validate', () => {
  it('accepts the example service config (exit 0)', async () => {
    const r = await runCli(['validate', '--config', 'examples/service/tollgate.yaml']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/examples\/service\/tollgate\.yaml: valid — 4 models, 5 deployments, policy ok, 2 keys/);
  });

  it('lists every violation of the config, registry, policy and identity, then exits 1', async () => {
    const dir = tempDir({
      'tollgate.yaml': `
listen: { host: 127.0.0.1, port: 99999 }
registry: ./registry.yaml
policy: ./policy.yaml
identity:
  virtual_keys:
    - { hash: "sha256:nothex", principal: { user: alice } }
store: { url: "http://not-redis", ttl: 3 }
usage: kafka://nowhere
drain_timeout_s: -1
surprise: true
`,
      'registry.yaml': VALID_REGISTRY.replace(
        'provider: openai, format: openai_chat, upstream_model',
        'provider: nowhere, format: openai_chat, upstream_model',
      ),
      'policy.yaml': `
enforcement: maybe
rate_limits: [ { id: r1, match: {} } ]
`,
    });
    const r = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const expected = [
      /tollgate\.yaml: listen\.port: .*65535/,
      /tollgate\.yaml: identity\.virtual_keys\[0\]\.hash: write key hashes as "sha256:"/,
      /tollgate\.yaml: store\.url: a redis:\/\/ or rediss:\/\/ URL/,
      /tollgate\.yaml: store\.ttl: unknown key "ttl"/,
      /tollgate\.yaml: usage: usage is "stdout", "file:<path>", a postgres:\/\/ URL, or "none"/,
      /tollgate\.yaml: drain_timeout_s: /,
      /tollgate\.yaml: surprise: unknown key "surprise"/,
      /registry\.yaml: models\.gpt-mini\.deployments\[0\]\.provider: .*nowhere/,
      /policy\.yaml: enforcement: /,
      /policy\.yaml: rate_limits\[0\]: set rpm, tpm, concurrent, or unlimited: true/,
    ];
    for (const pattern of expected) expect(r.stderr).toMatch(pattern);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`tollgate\\.yaml: invalid — ${lines.length - 1} violations:$`));
    expect(lines.length - 1).toBeGreaterThanOrEqual(expected.length);
  });

  it('refuses the DLP, tool and prompt keys the gateway could not enforce, each with its path', async () => {
    const dir = tempDir({
      'tollgate.yaml': 'registry: ./registry.yaml\npolicy: ./policy.yaml\n',
      'registry.yaml': VALID_REGISTRY,
      'policy.yaml': `
dlp:
  default: { email: redact, passport: block }
  custom:
    - { id: ticket, pattern: "(?<=TKT-)[0-9]+" }
    - { id: anything, pattern: "x*" }
    - { id: shout, pattern: "[A-Z]{4}", flags: q }
tools:
  allow_lists: [ { id: nobody, match: { bus: [] }, allow: [get_weather] } ]
prompts:
  - { id: p, version: 1, match: { formats: [bedrock_chat] }, text: "Be brief." }
`,
    });
    const r = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(r.code).toBe(1);
    for (const pattern of [
      /policy\.yaml: dlp\.default\.passport: unknown DLP entity "passport"/,
      // Compiled as `serve` compiles it (RE2): lookbehind does not compile.
      /policy\.yaml: dlp\.custom\[0\]\.pattern: does not compile as an RE2 pattern/,
      /policy\.yaml: dlp\.custom\[1\]\.pattern: matches the empty string/,
      /policy\.yaml: dlp\.custom\[2\]\.flags: /,
      /policy\.yaml: tools\.allow_lists\[0\]\.match: "bus: \[\]" matches nobody/,
      /policy\.yaml: prompts\[0\]\.match\.formats\[0\]: unknown wire format "bedrock_chat"/,
    ])
      expect(r.stderr).toMatch(pattern);
  });

  it('reports YAML syntax errors with their line, and missing files', async () => {
    const dir = tempDir({ 'tollgate.yaml': 'registry: ./nope.yaml\nlisten: { port: 8787\n' });
    const r = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/tollgate\.yaml: line \d+, column \d+: Flow map/);

    const dir2 = tempDir({ 'tollgate.yaml': 'registry: ./nope.yaml\n' });
    const r2 = await runCli(['validate', '--config', join(dir2, 'tollgate.yaml')]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/nope\.yaml: file not found/);

    const r3 = await runCli(['validate', '--config', join(dir2, 'absent.yaml')]);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/absent\.yaml: file not found/);
  });

  it('resolves relative paths against the config file’s folder, not the working directory', async () => {
    const dir = tempDir({ 'tollgate.yaml': 'registry: ./registry.yaml\nusage: file:./usage.jsonl\n', 'registry.yaml': VALID_REGISTRY });
    const r = await runCli(['validate', '--config', 'tollgate.yaml'], { cwd: dir });
    expect(r.code).toBe(0);
    const elsewhere = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stdout).toMatch(/valid — 1 models, 1 deployments, no policy, 0 keys/);
  });

  it('warns (exit 0) about pooled entries no configured caller can be in, and refuses bad pooled keys (exit 1)', async () => {
    const hash = `sha256:${'a'.repeat(64)}`;
    const dir = tempDir({
      'tollgate.yaml': `registry: ./registry.yaml\npolicy: ./policy.yaml\nidentity: { virtual_keys: [ { hash: "${hash}", principal: { user: alice, bu: payments } } ] }\n`,
      'registry.yaml': VALID_REGISTRY,
      'policy.yaml': `
spend:
  rules:
    - id: team-cap
      matches: [ { match: { per: team, scope: all, window: monthly, at_or_above_usd: "10" }, actions: [ { type: block } ] } ]
    - id: bu-cap
      matches: [ { match: { per: bu, bus: [payments], scope: all, window: monthly, at_or_above_usd: "10" }, actions: [ { type: block } ] } ]
`,
    });
    const r = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('tollgate: warning — 1 policy entry applies to no caller:');
    expect(r.stderr).toMatch(/policy\.yaml: spend\.rules\[0\]\.matches\[0\]\.match\.per: per: team, but no caller can have a team/);
    expect(r.stderr).not.toContain('rules[1]');

    writeFileSync(
      join(dir, 'policy.yaml'),
      `
spend:
  rules:
    - id: r
      matches: [ { match: { per: department, scope: all, window: rolling_24h, at_or_above_usd: "10" }, actions: [ { type: pause, hours: 1 } ] } ]
rate_limits: [ { id: c, concurrent: 0 }, { id: t, per: bu, match: { teams: [search] }, rpm: 5 } ]
`,
    );
    const bad = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/spend\.rules\[0\]\.matches\[0\]\.match\.per: "department" is not one of/);
    expect(bad.stderr).toMatch(/spend\.rules\[0\]\.matches\[0\]\.actions\[0\]\.type: a pause action needs a calendar window/);
    expect(bad.stderr).toMatch(/rate_limits\[0\]\.concurrent: must be positive/);
    expect(bad.stderr).toMatch(/rate_limits\[1\]\.match\.teams: teams cannot narrow a per: bu pool/);
  });
});

describe('tollgate validate: one file at a time, and what was probably meant', () => {
  const POLICY = `
spend:
  rules:
    - id: mini-daily
      matches:
        - match: { scope: gpt-mni, window: daily, at_or_above_usd: "5" }
          actions: [ { type: block } ]
`;

  it('checks a registry alone', async () => {
    const dir = tempDir({ 'registry.yaml': VALID_REGISTRY });
    const r = await runCli(['validate', '--registry', join(dir, 'registry.yaml')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/registry\.yaml: valid — 1 models, 1 deployments; registry sha256:[0-9a-f]{64}/);
  });

  it('checks a policy alone (scopes unchecked, and says so), and against a registry when both are given', async () => {
    const dir = tempDir({ 'registry.yaml': VALID_REGISTRY, 'policy.yaml': POLICY });
    const alone = await runCli(['validate', '--policy', join(dir, 'policy.yaml')]);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toMatch(/policy\.yaml: valid — 1 spend rule, 0 rate limits; scopes and models not checked/);
    const both = await runCli(['validate', '-r', join(dir, 'registry.yaml'), '-p', join(dir, 'policy.yaml')]);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/policy\.yaml: spend\.rules\[0\]\.matches\[0\]\.match\.scope: unknown scope "gpt-mni": .*\(did you mean "gpt-mini"\?\)/);
  });

  it('names what a misspelt key or value probably meant, and a missing price as missing', async () => {
    const dir = tempDir({
      'tollgate.yaml': 'registry: ./registry.yaml\nstore: memroy\nusage: stdot\nlisten: { prot: 8080 }\n',
      'registry.yaml': VALID_REGISTRY.replace('input: "0.15", ', '').replace('brand: openai', 'brand: openai\n    visibilty: hidden'),
    });
    const r = await runCli(['validate', '--config', join(dir, 'tollgate.yaml')]);
    expect(r.code).toBe(1);
    for (const line of [
      /tollgate\.yaml: store: store is "memory", a redis:\/\/ URL, .*\(did you mean "memory"\?\)/,
      /tollgate\.yaml: usage: .*\(did you mean "stdout"\?\)/,
      /tollgate\.yaml: listen\.prot: unknown key "prot" \(did you mean "port"\?\)/,
      /registry\.yaml: models\.gpt-mini\.visibilty: unknown key "visibilty" \(did you mean "visibility"\?\)/,
      /registry\.yaml: models\.gpt-mini\.deployments\[0\]\.pricing\.input: missing required key "input"/,
    ])
      expect(r.stderr).toMatch(line);
    expect(r.stderr).not.toMatch(/non-negative/);
  });

  it('refuses --config together with --registry or --policy (exit 2)', async () => {
    const r = await runCli(['validate', '--config', 'a.yaml', '--policy', 'b.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/give --config, or --registry and\/or --policy, not both/);
  });
});

describe('tollgate --version and help', () => {
  it('prints the version of the package that ships it', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'packages/adapters-node/package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`tollgate ${pkg.version}\n`);
    }
  });

  it('has help for every command, with its options and exit codes', async () => {
    const general = await runCli(['--help']);
    expect(general.stdout).toMatch(/Commands:[\s\S]*serve[\s\S]*validate[\s\S]*key create[\s\S]*Exit codes:[\s\S]*2 {2}usage error/);
    for (const [args, pattern] of [
      [['serve', '--help'], /Usage: tollgate serve[\s\S]*\/readyz[\s\S]*SIGHUP[\s\S]*Exit codes/],
      [['help', 'validate'], /Usage: tollgate validate[\s\S]*--registry FILE[\s\S]*--policy FILE/],
      [['key', 'create', '--help'], /Usage: tollgate key create --user NAME/],
      [['key', '--help'], /Usage: tollgate key create/],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(pattern);
    }
  });

  it('suggests the command or option that was probably meant (exit 2)', async () => {
    const command = await runCli(['valdate']);
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/unknown command "valdate" \(did you mean "validate"\?\)/);
    const option = await runCli(['serve', '--confg', 'x.yaml']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/serve: unknown option --confg \(did you mean --config\?\)/);
    expect(option.stderr).toMatch(/tollgate serve --help/);
  });
});

describe('tollgate key create', () => {
  it('prints a new tg_ key once and the config entry with its sha256 hash', async () => {
    const r = await runCli(['key', 'create', '--user', 'alice', '--tier', 'normal', '--team', 'search', '--bu', 'payments', '--leaders', 'ceo,vp']);
    expect(r.code).toBe(0);
    const key = /^ {2}(tg_[A-Za-z0-9_-]{32,})$/m.exec(r.stdout)?.[1];
    expect(key).toBeDefined();
    expect(r.stdout.split(key!).length).toBe(2); // shown exactly once
    const entryLine = r.stdout.split('\n').find((l) => l.trim().startsWith('- { hash:'))!;
    const entries = parseYaml(entryLine.trim()) as Array<{ hash: string; principal: Record<string, unknown> }>;
    expect(entries[0]!.hash).toBe(`sha256:${createHash('sha256').update(key!).digest('hex')}`);
    expect(entries[0]!.principal).toEqual({ user: 'alice', tier: 'normal', team: 'search', bu: 'payments', leaders: ['ceo', 'vp'] });
    expect(IdentityConfigSchema.safeParse({ virtual_keys: entries }).success).toBe(true);
  });

  it('prints JSON with --json, a different key each time', async () => {
    const [a, b] = await Promise.all([runCli(['key', 'create', '--user', 'bob', '--json']), runCli(['key', 'create', '--user', 'bob', '--json'])]);
    const ja = JSON.parse(a.stdout) as { key: string; hash: string; principal: unknown };
    const jb = JSON.parse(b.stdout) as { key: string };
    expect(ja.key).toMatch(/^tg_[A-Za-z0-9_-]{32,}$/);
    expect(ja.hash).toBe(`sha256:${createHash('sha256').update(ja.key).digest('hex')}`);
    expect(ja.principal).toEqual({ user: 'bob' });
    expect(jb.key).not.toBe(ja.key);
  });

  it('exits 2 on usage errors', async () => {
    const noUser = await runCli(['key', 'create']);
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toMatch(/--user NAME is required/);
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    const badOption = await runCli(['validate', '--bogus']);
    expect(badOption.code).toBe(2);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: tollgate <command>/);
  });
});
