import { describe, expect, it } from 'vitest';
import { baseRegistry } from './__tests__/fixtures.js';
import { credentialSecrets } from './credentials.js';
import { loadRegistry } from './load.js';
import { candidates, countCandidates, resolveEntry } from './resolve.js';
import { RegistrySchema } from './schema.js';
import type { RegistryIssue } from './types.js';

type Raw = Record<string, any>;

function errorsOf(raw: unknown): RegistryIssue[] {
  const result = loadRegistry(raw);
  if (result.ok) throw new Error('expected the registry to be rejected');
  return result.errors;
}

const sonnet = (r: Raw) => r.models['claude-sonnet'];
const AWS = { kind: 'aws_sigv4', region: 'us-east-1', service: 'bedrock', access_key_id: 'AWS_ACCESS_KEY_ID', secret_access_key: 'AWS_SECRET_ACCESS_KEY' };
const dep = (r: Raw, i = 1) => sonnet(r).deployments[i];

/** One row per rule: a way to break the base registry, and the violation it must produce. */
const VIOLATIONS: [name: string, mutate: (r: Raw) => void, path: string, message: RegExp][] = [
  ['unknown top-level key', (r) => (r.extra = 1), 'extra', /unknown key "extra"/],
  ['missing section', (r) => delete r.operations, 'operations', /missing required key "operations"/],
  ['section of the wrong type', (r) => (r.converters = {}), 'converters', /must be a list/],
  ['unknown key in a model', (r) => (sonnet(r).color = 'blue'), 'models.claude-sonnet.color', /unknown key "color"/],
  ['unknown key in pricing', (r) => (dep(r).pricing.vat = '0'), 'models.claude-sonnet.deployments[1].pricing.vat', /unknown key/],
  ['missing model key', (r) => delete sonnet(r).brand, 'models.claude-sonnet.brand', /missing required key "brand"/],
  ['invalid model id', (r) => (r.models['bad id'] = sonnet(r)), 'models["bad id"]', /invalid name/],
  ['unknown wire format', (r) => (r.wire_formats.cohere_chat = { family: 'chat' }), 'wire_formats.cohere_chat', /unknown wire format "cohere_chat"/],
  [
    'wrong family for a format',
    (r) => (r.wire_formats.openai_responses.family = 'chat'),
    'wire_formats.openai_responses.family',
    /family of openai_responses is "responses"/,
  ],
  [
    'entry route to an undeclared format',
    (r) => r.entry_routes.push({ path: '/x', format: 'openai_realtime' }),
    'entry_routes[5].format',
    /"openai_realtime" is not declared/,
  ],
  [
    'entry route with another placeholder',
    (r) => r.entry_routes.push({ path: '/v1/{org}/chat', format: 'openai_chat' }),
    'entry_routes[5].path',
    /only one placeholder, \{model\}/,
  ],
  ['entry route with a query', (r) => r.entry_routes.push({ path: '/v1/chat?x=1', format: 'openai_chat' }), 'entry_routes[5].path', /no query/],
  [
    'duplicate entry route',
    (r) => r.entry_routes.push({ path: '/v1/messages', format: 'anthropic_messages' }),
    'entry_routes[5].path',
    /duplicate entry route: entry_routes\[2\]/,
  ],
  ['converter from an undeclared format', (r) => r.converters.push({ from: 'nope', to: 'openai_chat' }), 'converters[4].from', /"nope" is not declared/],
  ['identity converter', (r) => r.converters.push({ from: 'openai_chat', to: 'openai_chat' }), 'converters[4]', /implicit \(identity\)/],
  [
    'duplicate converter',
    (r) => r.converters.push({ from: 'openai_chat', to: 'anthropic_messages' }),
    'converters[4]',
    /duplicate converter: same as converters\[0\]/,
  ],
  ['unsupported credential kind', (r) => (r.credentials.aws = { kind: 'aws_iam_role', secret: 'AWS' }), 'credentials.aws.kind', /./],
  ['aws_sigv4 with a secret of another kind', (r) => (r.credentials.aws1 = { ...AWS, secret: 'AWS' }), 'credentials.aws1.secret', /unknown key/],
  [
    'aws_sigv4 without its secret access key',
    (r) => (r.credentials.aws2 = { ...AWS, secret_access_key: undefined }),
    'credentials.aws2.secret_access_key',
    /missing required key/,
  ],
  ['aws_sigv4 with a region that is not one', (r) => (r.credentials.aws3 = { ...AWS, region: 'US East' }), 'credentials.aws3.region', /AWS region/],
  ['aws_sigv4 for another service', (r) => (r.credentials.aws4 = { ...AWS, service: 's3' }), 'credentials.aws4.service', /./],
  [
    'aws_sigv4 key given as a value, not a secret name',
    (r) => (r.credentials.aws5 = { ...AWS, access_key_id: 'AKIA/EXAMPLE+KEY' }),
    'credentials.aws5.access_key_id',
    /must name a secret/,
  ],
  ['credential missing its header', (r) => delete r.credentials.anthropic.header, 'credentials.anthropic.header', /missing required key "header"/],
  ['credential with a key of another kind', (r) => (r.credentials.openai.param = 'key'), 'credentials.openai.param', /unknown key/],
  [
    'provider credential unresolved',
    (r) => (r.providers.openai.credential = 'openai-prod'),
    'providers.openai.credential',
    /credential "openai-prod" is not declared/,
  ],
  [
    'secret in a static header',
    (r) => (r.providers.openai.headers = { Authorization: 'Bearer sk-live' }),
    'providers.openai.headers.Authorization',
    /would carry a secret/,
  ],
  ...['Host', 'content-length', 'Transfer-Encoding', 'connection'].map(
    (header) =>
      [
        `a static ${header} header`,
        (r: Raw) => (r.providers.openai.headers = { ...r.providers.openai.headers, [header]: 'x' }),
        `providers.openai.headers.${header}`,
        /is the transport's to set/,
      ] as [string, (r: Raw) => void, string, RegExp],
  ),
  ...(['gemini_generate_content', 'anthropic_vertex'] as const).map(
    (format) =>
      [
        `a ${format} operation without stream_path`,
        (r: Raw) => delete r.operations[format === 'anthropic_vertex' ? 1 : 4].stream_path,
        `operations[${format === 'anthropic_vertex' ? 1 : 4}].stream_path`,
        /streams from its own endpoint: give stream_path/,
      ] as [string, (r: Raw) => void, string, RegExp],
  ),
  [
    'static header shadowing the credential header',
    (r) => ((r.credentials.anthropic.header = 'x-tenant-key'), (r.providers.anthropic.headers['X-Tenant-Key'] = 'v')),
    'providers.anthropic.headers.X-Tenant-Key',
    /collides with the header of credential "anthropic"/,
  ],
  ['provider base_url not http(s)', (r) => (r.providers.openai.base_url = 'ftp://api.openai.com'), 'providers.openai.base_url', /http\(s\) URL/],
  ['provider base_url with a query', (r) => (r.providers.openai.base_url = 'https://api.openai.com?x=1'), 'providers.openai.base_url', /without query/],
  [
    'operation provider unresolved',
    (r) => r.operations.push({ provider: 'azure', format: 'openai_chat', family: 'chat', path: '/x' }),
    'operations[6].provider',
    /provider "azure" is not declared/,
  ],
  ['operation family differs from its format', (r) => (r.operations[3].family = 'chat'), 'operations[3].family', /belongs to family "responses"/],
  [
    'duplicate operation',
    (r) => r.operations.push({ provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v2/chat' }),
    'operations[6]',
    /duplicate operation for \(openai, openai_chat, chat\)/,
  ],
  [
    'operation path with another placeholder',
    (r) => (r.operations[0].path = '/v1/{version}/messages'),
    'operations[0].path',
    /only placeholder .* is \{model\}/,
  ],
  [
    'model entry format undeclared',
    (r) => sonnet(r).entry_formats.push('bedrock_converse'),
    'models.claude-sonnet.entry_formats[3]',
    /"bedrock_converse" is not declared/,
  ],
  ['model entry format listed twice', (r) => sonnet(r).entry_formats.push('openai_chat'), 'models.claude-sonnet.entry_formats[3]', /listed twice/],
  ['alias equal to its own id', (r) => sonnet(r).aliases.push('claude-sonnet'), 'models.claude-sonnet.aliases[1]', /collides with model id "claude-sonnet"/],
  ['alias equal to another model id', (r) => sonnet(r).aliases.push('gpt-5'), 'models.claude-sonnet.aliases[1]', /collides with model id "gpt-5"/],
  [
    'alias shared by two models',
    (r) => (r.models['gpt-5'].aliases = ['claude-sonnet-latest']),
    'models.gpt-5.aliases[0]',
    /collides with an alias of model "claude-sonnet"/,
  ],
  [
    'alias repeated in one model',
    (r) => sonnet(r).aliases.push('claude-sonnet-latest'),
    'models.claude-sonnet.aliases[1]',
    /collides with an alias of model "claude-sonnet"/,
  ],
  ['tag equal to a model id', (r) => sonnet(r).tags.push('gpt-5'), 'models.claude-sonnet.tags[3]', /tag "gpt-5" collides with model id "gpt-5"/],
  [
    'model named after the implicit tag',
    (r) => ((r.models.all = r.models['llama-local']), delete r.models['llama-local']),
    'models.all',
    /tag every model has/,
  ],
  [
    'deployment id used twice',
    (r) => (r.models['gpt-5'].deployments[1].id = 'sonnet@vertex'),
    'models.gpt-5.deployments[1].id',
    /already used by a deployment of model "claude-sonnet"/,
  ],
  [
    'deployment provider unresolved',
    (r) => (dep(r, 3).provider = 'bedrock'),
    'models.claude-sonnet.deployments[3].provider',
    /provider "bedrock" is not declared/,
  ],
  [
    'deployment format undeclared',
    (r) => (dep(r, 3).format = 'bedrock_converse'),
    'models.claude-sonnet.deployments[3].format',
    /"bedrock_converse" is not declared/,
  ],
  ['enabled deployment without pricing', (r) => delete dep(r, 2).pricing, 'models.claude-sonnet.deployments[2].pricing', /must be priced/],
  [
    'enabling an unpriced deployment',
    (r) => (r.models['claude-next'].deployments[0].enabled = true),
    'models.claude-next.deployments[0].pricing',
    /must be priced/,
  ],
  [
    'enabled deployment without an operation',
    (r) => (r.models['gpt-5'].deployments[0].provider = 'google'),
    'models.gpt-5.deployments[0]',
    /no operation for \(google, openai_chat, chat\)/,
  ],
  ['negative price', (r) => (dep(r).pricing.input = '-3'), 'models.claude-sonnet.deployments[1].pricing.input', /non-negative decimal/],
  ['negative numeric price', (r) => (dep(r).pricing.output = -15), 'models.claude-sonnet.deployments[1].pricing.output', /non-negative decimal/],
  ['price in exponent notation', (r) => (dep(r).pricing.input = '3e0'), 'models.claude-sonnet.deployments[1].pricing.input', /non-negative decimal/],
  ['price with a comma', (r) => (dep(r).pricing.cache_write = '3,75'), 'models.claude-sonnet.deployments[1].pricing.cache_write', /non-negative decimal/],
  ['price that is not a number', (r) => (dep(r).pricing.output = true), 'models.claude-sonnet.deployments[1].pricing.output', /non-negative decimal/],
  ['unknown price unit', (r) => (dep(r).pricing.unit = 'usd_per_ktok'), 'models.claude-sonnet.deployments[1].pricing.unit', /./],
  [
    'long tier without a threshold',
    (r) => delete dep(r).pricing.threshold_tokens,
    'models.claude-sonnet.deployments[1].pricing.threshold_tokens',
    /needs threshold_tokens/,
  ],
  [
    'threshold without a long tier',
    (r) => (r.models['gpt-5'].deployments[1].pricing.threshold_tokens = 1000),
    'models.gpt-5.deployments[1].pricing.long',
    /needs a long-context tier/,
  ],
  [
    'long tier missing a rate its base names',
    (r) =>
      (r.models['gemini-flash'].deployments[0].pricing = {
        unit: 'usd_per_mtok',
        input: '1.25',
        output: '10',
        cache_read: '0.125',
        threshold_tokens: 200000,
        long: { input: '2.50', output: '15' },
      }),
    'models.gemini-flash.deployments[0].pricing.long.cache_read',
    /must name cache_read because the base names it/,
  ],
  ['fractional weight', (r) => (dep(r).weight = 1.5), 'models.claude-sonnet.deployments[1].weight', /./],
  ['negative priority', (r) => (dep(r).priority = -1), 'models.claude-sonnet.deployments[1].priority', /./],
  ['unknown visibility', (r) => (sonnet(r).visibility = 'secret'), 'models.claude-sonnet.visibility', /./],
  ['no entry formats', (r) => (sonnet(r).entry_formats = []), 'models.claude-sonnet.entry_formats', /./],
  [
    'entry format with no converter',
    (r) => (r.models['gemini-flash'].entry_formats = ['gemini_generate_content', 'anthropic_messages']),
    'models.gemini-flash.entry_formats[1]',
    /not serviceable: no enabled deployment takes anthropic_messages/,
  ],
  [
    'entry format served only by a disabled deployment',
    (r) => (r.models['gpt-5'].deployments[1].enabled = false),
    'models.gpt-5.entry_formats[1]',
    /not serviceable: .*openai_responses/,
  ],
  ['converter removed under a model', (r) => r.converters.splice(3, 1), 'models.claude-sonnet.entry_formats[2]', /not serviceable: .*openai_responses/],
  [
    'google_service_account with a scope that is not a URL',
    (r) => (r.credentials.gsa1 = { kind: 'google_service_account', secret: 'VERTEX_SA_KEY', scopes: ['cloud-platform'] }),
    'credentials.gsa1.scopes[0]',
    /OAuth scope URL/,
  ],
  [
    'google_service_account with the key inline, not a secret name',
    (r) => (r.credentials.gsa2 = { kind: 'google_service_account', secret: '{"type":"service_account"}' }),
    'credentials.gsa2.secret',
    /must name a secret/,
  ],
  [
    'google_service_account with an empty scope list',
    (r) => (r.credentials.gsa3 = { kind: 'google_service_account', secret: 'VERTEX_SA_KEY', scopes: [] }),
    'credentials.gsa3.scopes',
    /./,
  ],
  [
    'count route on a format that cannot count',
    (r) => r.entry_routes.push({ path: '/v1/chat/count', format: 'openai_chat', kind: 'count_tokens' }),
    'entry_routes[5].kind',
    /openai_chat has no count_tokens endpoint/,
  ],
  [
    'a streaming count route',
    (r) => r.entry_routes.push({ path: '/v1/messages/count_tokens', format: 'anthropic_messages', kind: 'count_tokens', stream: true }),
    'entry_routes[5].stream',
    /does not stream/,
  ],
  ...(['openai_chat', 'openai_responses', 'anthropic_messages', 'anthropic_vertex'] as const).map((format): [string, (r: Raw) => void, string, RegExp] => [
    `a streaming route for ${format}, whose body says whether to stream`,
    (r) => r.entry_routes.push({ path: '/v1/always-streamed', format, stream: true }),
    'entry_routes[5].stream',
    new RegExp(`${format} requests say whether to stream in their body`),
  ]),
  ['an unknown route kind', (r) => r.entry_routes.push({ path: '/v1/rerank', format: 'openai_chat', kind: 'rerank' }), 'entry_routes[5].kind', /./],
  [
    'an embed operation on a format without embeddings',
    (r) => r.operations.push({ provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/embed', kind: 'embed' }),
    'operations[6].kind',
    /anthropic_messages has no embed endpoint/,
  ],
  [
    'a Gemini embed operation not on batchEmbedContents',
    (r) =>
      r.operations.push({ provider: 'google', format: 'gemini_generate_content', family: 'chat', path: '/v1beta/models/{model}:embedContent', kind: 'embed' }),
    'operations[6].path',
    /batchEmbedContents/,
  ],
  [
    'an embedding model with no embed operation',
    (r) =>
      (r.models['embed-x'] = {
        brand: 'openai',
        kind: 'embed',
        entry_formats: ['openai_chat'],
        deployments: [
          {
            id: 'e@openai',
            provider: 'openai',
            format: 'openai_chat',
            upstream_model: 'text-embedding-3-small',
            pricing: { unit: 'usd_per_mtok', input: '0.02', output: '0' },
          },
        ],
      }),
    'models.embed-x.deployments[0]',
    /no operation for \(openai, openai_chat, chat, embed\)/,
  ],
  ...(['capabilities', 'tokenizer'] as const).map(
    (what) =>
      [
        `an embedding model with generation-only ${what}`,
        (r: Raw) =>
          r.operations.push({ provider: 'local', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' }) &&
          (r.models[`embed-${what}`] = {
            brand: 'openai',
            kind: 'embed',
            entry_formats: ['openai_chat'],
            ...(what === 'capabilities' ? { capabilities: { context_window: 8191 } } : { tokenizer: 'cl100k_base' }),
            deployments: [
              {
                id: 'z@openai',
                provider: 'openai',
                format: 'openai_chat',
                upstream_model: 'text-embedding-3-small',
                pricing: { unit: 'usd_per_mtok', input: '0.02', output: '0' },
              },
            ],
          }),
        what === 'capabilities' ? 'models.embed-capabilities.capabilities.context_window' : 'models.embed-tokenizer.tokenizer',
        what === 'capabilities' ? /does not use capabilities.context_window/ : /is not token-counted/,
      ] as [string, (r: Raw) => void, string, RegExp],
  ),
  [
    'an embedding model priced for output',
    (r) =>
      (r.models['embed-y'] = {
        brand: 'openai',
        kind: 'embed',
        entry_formats: ['openai_chat'],
        deployments: [
          {
            id: 'e2@openai',
            provider: 'openai',
            format: 'openai_chat',
            upstream_model: 'text-embedding-3-large',
            pricing: { unit: 'usd_per_mtok', input: '0.13', output: '1' },
          },
        ],
      }),
    'models.embed-y.deployments[0].pricing.output',
    /must be 0/,
  ],
  [
    'an embedding model offered in a format without embeddings',
    (r) => (r.models['embed-z'] = { brand: 'openai', kind: 'embed', entry_formats: ['anthropic_messages'], deployments: [] }),
    'models.embed-z.entry_formats[0]',
    /has no embeddings endpoint/,
  ],
  ['an unknown tokenizer', (r) => (sonnet(r).tokenizer = 'claude-v3'), 'models.claude-sonnet.tokenizer', /./],
];

const STRUCTURAL = new Set([
  'unknown top-level key',
  'unknown key in a model',
  'unknown key in pricing',
  'missing model key',
  'invalid model id',
  'entry route with a query',
  'unsupported credential kind',
  'aws_sigv4 with a secret of another kind',
  'aws_sigv4 without its secret access key',
  'aws_sigv4 with a region that is not one',
  'aws_sigv4 for another service',
  'aws_sigv4 key given as a value, not a secret name',
  'an unknown route kind',
  'an unknown tokenizer',
  'google_service_account with a scope that is not a URL',
  'google_service_account with the key inline, not a secret name',
  'google_service_account with an empty scope list',
  'credential missing its header',
  'credential with a key of another kind',
  'provider base_url not http(s)',
  'provider base_url with a query',
  'negative price',
  'negative numeric price',
  'price in exponent notation',
  'price with a comma',
  'price that is not a number',
  'unknown price unit',
  'fractional weight',
  'negative priority',
  'unknown visibility',
  'no entry formats',
]);
const SECTION = new Set(['missing section', 'section of the wrong type']);

describe('loadRegistry', () => {
  it('accepts the base registry', () => {
    const result = loadRegistry(baseRegistry());
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('the whole-file schema accepts the base registry too', () => {
    expect(RegistrySchema.safeParse(baseRegistry()).success).toBe(true);
  });

  it.each(VIOLATIONS)('rejects: %s', (_name, mutate, path, message) => {
    const raw = baseRegistry();
    mutate(raw);
    const errors = errorsOf(raw);
    expect(errors).toContainEqual({ path, message: expect.stringMatching(message) });
  });

  // A structurally broken entry cannot be checked further, so structural and cross-reference
  // violations are combined separately (the next test mixes the two).
  it.each([
    ['every cross-reference violation', VIOLATIONS.filter(([name]) => !STRUCTURAL.has(name) && !SECTION.has(name))],
    ['every structural violation', VIOLATIONS.filter(([name]) => STRUCTURAL.has(name))],
  ])('reports %s at once', (_name, rows) => {
    const raw = baseRegistry();
    for (const [, mutate] of rows) mutate(raw);
    const errors = errorsOf(raw);
    const anyIndex = (path: string) => path.replace(/\[\d+\]/g, '[*]');
    const missing = rows.filter(([, , path, message]) => !errors.some((e) => anyIndex(e.path) === anyIndex(path) && message.test(e.message)));
    expect(missing.map(([name]) => name)).toEqual([]);
    expect(rows.length).toBeGreaterThan(15);
  });

  it('does not cascade: a broken entry hides none of the others, and references to it are not reported', () => {
    const raw = baseRegistry();
    r_break(raw);
    const errors = errorsOf(raw);
    expect(errors).toEqual([
      { path: 'providers.openai.base_url', message: expect.stringMatching(/http\(s\) URL/) },
      { path: 'models.gemini-flash.deployments[0].pricing.input', message: expect.stringMatching(/non-negative decimal/) },
      { path: 'models.gpt-5.aliases[0]', message: 'alias "gemini-flash" collides with model id "gemini-flash"' },
    ]);
  });

  it('does not judge serviceability through an unresolved reference, or of an undeclared format', () => {
    const raw = baseRegistry();
    raw.models['gemini-flash'].deployments[0].provider = 'gogle';
    raw.models['gpt-5'].entry_formats.push('cohere_chat');
    expect(errorsOf(raw)).toEqual([
      { path: 'models.gpt-5.entry_formats[2]', message: 'wire format "cohere_chat" is not declared in wire_formats' },
      { path: 'models.gemini-flash.deployments[0].provider', message: 'provider "gogle" is not declared in providers (did you mean "google"?)' },
    ]);
  });

  it('checks the aliases of a structurally broken model for collisions', () => {
    const raw = baseRegistry();
    raw.models['gpt-5'].color = 'green';
    raw.models['gpt-5'].aliases = ['claude-sonnet-latest'];
    expect(errorsOf(raw)).toContainEqual({
      path: 'models.gpt-5.aliases[0]',
      message: expect.stringMatching(/collides with an alias of model "claude-sonnet"/),
    });
  });

  it('rejects data that is not a registry', () => {
    expect(errorsOf(null)).toEqual([{ path: '', message: expect.stringMatching(/must be an object/) }]);
    expect(errorsOf([])).toHaveLength(1);
    expect(
      errorsOf({})
        .map((e) => e.path)
        .sort(),
    ).toEqual(['entry_routes', 'models', 'operations', 'providers', 'wire_formats']);
  });

  it('says a missing price is missing, and what a misspelt key, value or reference probably meant', () => {
    const raw = baseRegistry();
    delete dep(raw).pricing.input;
    dep(raw).pricing.outptu = '15';
    sonnet(raw).visibility = 'hiden';
    raw.providrs = {};
    raw.models['gemini-flash'].deployments[0].provider = 'gogle';
    raw.converters.push({ from: 'openai_chatt', to: 'anthropic_messages' });
    const messages = Object.fromEntries(errorsOf(raw).map((e) => [e.path, e.message]));
    expect(messages).toMatchObject({
      'models.claude-sonnet.deployments[1].pricing.input': 'missing required key "input"',
      'models.claude-sonnet.deployments[1].pricing.outptu': 'unknown key "outptu" (did you mean "output"?)',
      'models.claude-sonnet.visibility': '"hiden" is not one of "listed", "hidden" (did you mean "hidden"?)',
      providrs: 'unknown key "providrs" (did you mean "providers"?)',
      'models.gemini-flash.deployments[0].provider': 'provider "gogle" is not declared in providers (did you mean "google"?)',
      'converters[4].from': 'wire format "openai_chatt" is not declared in wire_formats (did you mean "openai_chat"?)',
    });
    // A price that is there but malformed still says what a price looks like.
    const bad = baseRegistry();
    dep(bad).pricing.input = '-3';
    expect(errorsOf(bad)).toEqual([
      { path: 'models.claude-sonnet.deployments[1].pricing.input', message: 'must be a non-negative decimal: a string like "3.75" or a number' },
    ]);
  });

  it('accepts numbers as prices and parses them through their decimal string', () => {
    const result = loadRegistry(baseRegistry());
    if (!result.ok) throw new Error('invalid');
    const pricing = result.registry.deployments['gpt-5@chat']!.pricing!;
    expect(pricing.cache_read).toEqual({ units: 125n, scale: 3 });
    expect(pricing.input).toEqual({ units: 125n, scale: 2 });
  });

  it('accepts a staged model (no enabled deployment) without checking its serviceability', () => {
    const result = loadRegistry(baseRegistry());
    if (!result.ok) throw new Error('invalid');
    expect(result.registry.models['claude-next']!.staged).toBe(true);
    expect(result.registry.models['claude-sonnet']!.staged).toBe(false);
  });

  it('accepts a disabled deployment without pricing or an operation', () => {
    const raw = baseRegistry();
    raw.models['gpt-5'].deployments.push({ id: 'gpt-5@google', provider: 'google', format: 'openai_chat', upstream_model: 'x', enabled: false });
    expect(loadRegistry(raw).ok).toBe(true);
  });

  it('accepts a converter across families (a Responses client reaching a Messages deployment)', () => {
    const raw = baseRegistry();
    raw.models['claude-sonnet'].entry_formats = ['openai_responses'];
    expect(loadRegistry(raw).ok).toBe(true);
  });

  it('accepts a long tier that names more rates than its base', () => {
    const raw = baseRegistry();
    raw.models['gpt-5'].deployments[1].pricing = {
      unit: 'usd_per_mtok',
      input: '1',
      output: '2',
      threshold_tokens: 10,
      long: { input: '2', output: '4', cache_read: '1' },
    };
    expect(loadRegistry(raw).ok).toBe(true);
  });

  it('fills defaults: enabled, priority, weight, visibility, tags with `all`', () => {
    const result = loadRegistry(baseRegistry());
    if (!result.ok) throw new Error('invalid');
    const { registry } = result;
    expect(registry.deployments['gpt-5@chat']).toMatchObject({ enabled: true, priority: 1, weight: 1, region: null });
    expect(registry.models['gpt-5']).toMatchObject({ visibility: 'listed', tags: ['all', 'gpt', 'frontier'], aliases: [] });
    expect(registry.providers.openai!.baseUrl).toBe('https://api.openai.com');
    expect(registry.providers.local!.credential).toBeNull();
  });

  it('an aws_sigv4 credential: region and service as given, the three keys as secret names', () => {
    const raw = baseRegistry();
    raw.credentials.aws = { ...AWS, session_token: 'AWS_SESSION_TOKEN' };
    raw.providers.openai.credential = 'aws';
    const result = loadRegistry(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.registry.providers.openai!.credential).toEqual({
      name: 'aws',
      kind: 'aws_sigv4',
      region: 'us-east-1',
      service: 'bedrock',
      accessKeyId: 'AWS_ACCESS_KEY_ID',
      secretAccessKey: 'AWS_SECRET_ACCESS_KEY',
      sessionToken: 'AWS_SESSION_TOKEN',
    });
    expect(credentialSecrets(result.registry.credentials.aws!)).toEqual(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']);
  });

  it('a google_service_account credential: the secret name, and the cloud-platform scope by default', () => {
    const raw = baseRegistry();
    raw.credentials.vertex = { kind: 'google_service_account', secret: 'VERTEX_SA_KEY' };
    raw.credentials.other = { kind: 'google_service_account', secret: 'OTHER_KEY', scopes: ['https://www.googleapis.com/auth/generative-language'] };
    const result = loadRegistry(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.registry.providers.vertex!.credential).toEqual({
      name: 'vertex',
      kind: 'google_service_account',
      secret: 'VERTEX_SA_KEY',
      scopes: ['https://www.googleapis.com/auth/cloud-platform'],
    });
    expect(result.registry.credentials.other).toMatchObject({ scopes: ['https://www.googleapis.com/auth/generative-language'] });
    expect(credentialSecrets(result.registry.credentials.vertex!)).toEqual(['VERTEX_SA_KEY']);
  });

  it('count_tokens and embed routes and operations: the count candidates of a generation model, the embed candidates of an embedding model', () => {
    const raw = baseRegistry();
    raw.entry_routes.push(
      { path: '/v1/messages/count_tokens', format: 'anthropic_messages', kind: 'count_tokens' },
      { path: '/v1/embeddings', format: 'openai_chat', kind: 'embed' },
      { path: '/v1beta/models/{model}:batchEmbedContents', format: 'gemini_generate_content', kind: 'embed' },
    );
    raw.converters.push({ from: 'gemini_generate_content', to: 'openai_chat' });
    raw.operations.push(
      { provider: 'anthropic', format: 'anthropic_messages', family: 'chat', path: '/v1/messages/count_tokens', kind: 'count_tokens' },
      { provider: 'openai', format: 'openai_chat', family: 'chat', path: '/v1/embeddings', kind: 'embed' },
    );
    raw.models['text-embedding'] = {
      brand: 'openai',
      kind: 'embed',
      entry_formats: ['openai_chat', 'gemini_generate_content'],
      deployments: [
        {
          id: 'emb@openai',
          provider: 'openai',
          format: 'openai_chat',
          upstream_model: 'text-embedding-3-small',
          pricing: { unit: 'usd_per_mtok', input: '0.02', output: '0' },
        },
      ],
    };
    sonnet(raw).tokenizer = 'o200k_base';
    const result = loadRegistry(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const { registry } = result;
    expect(resolveEntry(registry, 'POST', '/v1/messages/count_tokens')).toMatchObject({ kind: 'count_tokens', format: 'anthropic_messages' });
    expect(resolveEntry(registry, 'POST', '/v1/messages')).toMatchObject({ kind: 'generate' });
    expect(countCandidates(registry, 'claude-sonnet', 'anthropic_messages').map((c) => [c.deployment.id, c.path])).toEqual([
      ['sonnet@anthropic', '/v1/messages/count_tokens'],
      ['sonnet@anthropic-eu', '/v1/messages/count_tokens'],
    ]);
    expect(countCandidates(registry, 'gpt-5', 'openai_chat')).toEqual([]);
    expect(candidates(registry, 'text-embedding', 'gemini_generate_content').map((c) => [c.deployment.id, c.plan, c.path])).toEqual([
      ['emb@openai', 'translate', '/v1/embeddings'],
    ]);
    expect(registry.models['text-embedding']).toMatchObject({ kind: 'embed', tokenizer: null });
    expect(registry.models['claude-sonnet']).toMatchObject({ kind: 'generate', tokenizer: 'o200k_base' });
  });

  it('passes a loaded registry through', () => {
    const result = loadRegistry(baseRegistry());
    if (!result.ok) throw new Error('invalid');
    const again = loadRegistry(result.registry);
    expect(again.ok && again.registry).toBe(result.registry);
  });

  it('returns frozen data', () => {
    const result = loadRegistry(baseRegistry());
    if (!result.ok) throw new Error('invalid');
    expect(Object.isFrozen(result.registry.models['gpt-5'])).toBe(true);
    expect(Object.isFrozen(result.registry.models['gpt-5']!.deployments[0]!.pricing)).toBe(true);
  });
});

function r_break(raw: Raw): void {
  raw.providers.openai.base_url = 'not a url'; // openai is still known: no "provider not declared" cascade
  raw.models['gemini-flash'].deployments[0].pricing.input = 'free'; // the model breaks structurally...
  raw.models['gpt-5'].aliases = ['gemini-flash']; // ...but its id still collides
}
