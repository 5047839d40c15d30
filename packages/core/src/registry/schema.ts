/**
 * The registry file's structure as zod schemas (reference: docs/registry.md). Unknown keys are
 * rejected everywhere. Cross-references and the other rules that span entries are checked by
 * `validate.ts`; the JSON Schema in `packages/core/schema/` is generated from `RegistrySchema`.
 * Written with zod/mini (functional checks; descriptions as `z.describe` checks).
 */
import * as z from 'zod/mini';
import type { WireFormat } from '@tollgate/codecs/base';
import { DECIMAL_STRING_PATTERN } from '../pricing/decimal.js';
import { useEnglishErrors } from '../zod-locale.js';
import { KNOWN_FORMATS } from './formats.js';

useEnglishErrors();

/** Ids of models, aliases, tags, deployments, providers and credentials. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]*$/;
export const Name = z
  .string()
  .check(z.maxLength(256), z.regex(NAME_PATTERN, { error: 'must start with a letter or digit and use only letters, digits and . _ : @ / + -' }));

/** An HTTP header name (RFC 9110 token). */
const HeaderName = z.string().check(z.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: 'must be an HTTP header name' }));
const HeaderValue = z.string().check(z.regex(/^[^\r\n\0]*$/, { error: 'must not contain line breaks' }));
/** The name of a secret (resolved by `options.secrets`, the environment by default). */
const SecretName = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, { error: 'must name a secret, e.g. ANTHROPIC_API_KEY' }));

const EntryPath = z.string().check(z.regex(/^\/[^\s?#]*$/, { error: 'must be a path starting with / (no query)' }));
const UpstreamPath = z.string().check(z.regex(/^\/[^\s#]*$/, { error: 'must be a path starting with /' }));

export const Family = z.enum(['chat', 'responses']);

export const WireFormatDecl = z.strictObject({ family: Family });

/** What a path does: generate an answer (the default), count a request's input tokens, or embed inputs. */
export const OperationKind = z.enum(['generate', 'count_tokens', 'embed']);

export const EntryRouteDecl = z.strictObject({
  path: EntryPath.check(z.describe('May contain {model}, e.g. "/v1beta/models/{model}:generateContent".')),
  format: Name,
  stream: z
    .optional(z.boolean())
    .check(
      z.describe(
        'Requests on this path stream (Gemini :streamGenerateContent, Bedrock /converse-stream). Refused for formats whose body says whether to stream (openai_chat, openai_responses, anthropic_messages, anthropic_vertex).',
      ),
    ),
  kind: z
    ._default(OperationKind, 'generate')
    .check(z.describe('generate (default), count_tokens (e.g. /v1/messages/count_tokens) or embed (e.g. /v1/embeddings).')),
});

export const ConverterDecl = z.strictObject({ from: Name, to: Name });

/** An AWS region name (`us-east-1`, `eu-central-2`, `us-gov-west-1`). */
const AwsRegion = z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, { error: 'must be an AWS region, e.g. us-east-1' }));

export const CredentialDecl = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('header'), header: HeaderName, secret: SecretName }),
  z.strictObject({ kind: z.literal('bearer'), secret: SecretName }),
  z.strictObject({ kind: z.literal('query'), param: z.string().check(z.regex(/^[A-Za-z0-9_.~-]+$/)), secret: SecretName }),
  z
    .strictObject({
      kind: z.literal('aws_sigv4'),
      region: AwsRegion,
      service: z.literal('bedrock').check(z.describe('The AWS service the signature is for.')),
      access_key_id: SecretName.check(z.describe('The name of the secret holding the access key id.')),
      secret_access_key: SecretName.check(z.describe('The name of the secret holding the secret access key.')),
      session_token: z.optional(SecretName).check(z.describe('The name of the secret holding a session token (temporary credentials).')),
    })
    .check(z.describe('Every call is signed with AWS Signature Version 4 (Amazon Bedrock).')),
  z
    .strictObject({
      kind: z.literal('google_service_account'),
      secret: SecretName.check(z.describe('The name of the secret holding the service account JSON key.')),
      scopes: z
        .optional(z.array(z.string().check(z.regex(/^https:\/\/[^\s]+$/, { error: 'must be an OAuth scope URL' }))).check(z.minLength(1)))
        .check(z.describe('OAuth scopes of the access token; default https://www.googleapis.com/auth/cloud-platform.')),
    })
    .check(
      z.describe(
        'A Google access token from a service account key (Vertex AI): a JWT grant signed with the key, exchanged at its token_uri, cached until a minute before it expires.',
      ),
    ),
]);

export const ProviderDecl = z.strictObject({
  base_url: z.string().check(z.regex(/^https?:\/\/[^\s?#]+$/, { error: 'must be an http(s) URL without query or fragment' })),
  credential: z.optional(Name).check(z.describe('A key of `credentials`; omit for an upstream that needs none.')),
  headers: z.optional(z.record(HeaderName, HeaderValue)).check(z.describe('Static, non-secret headers.')),
});

export const OperationDecl = z.strictObject({
  provider: Name,
  format: Name,
  family: Family,
  path: UpstreamPath.check(z.describe('Appended to base_url; {model} is replaced by the upstream model.')),
  stream_path: z.optional(UpstreamPath).check(z.describe('Used instead of path for streaming requests.')),
  kind: z._default(OperationKind, 'generate').check(z.describe('What the path does: generate (default), count_tokens or embed.')),
});

const PRICE_ERROR = 'must be a non-negative decimal: a string like "3.75" or a number';
// A price left out is reported as missing (by the parse's error map), not as a malformed number.
const priceError = (issue: { input?: unknown }) => (issue.input === undefined ? undefined : PRICE_ERROR);
const Price = z.union([z.string().check(z.regex(DECIMAL_STRING_PATTERN, { error: PRICE_ERROR })), z.number().check(z.nonnegative({ error: PRICE_ERROR }))], {
  error: priceError,
});

const RatesShape = {
  input: Price,
  output: Price,
  cache_read: z.optional(Price),
  cache_write: z.optional(Price),
  cache_write_1h: z.optional(Price),
};

export const LongRatesDecl = z.strictObject({
  input: z.optional(Price),
  output: z.optional(Price),
  cache_read: z.optional(Price),
  cache_write: z.optional(Price),
  cache_write_1h: z.optional(Price),
});

export const PricingDecl = z.strictObject({
  unit: z.literal('usd_per_mtok'),
  ...RatesShape,
  threshold_tokens: z.optional(z.int().check(z.nonnegative())).check(z.describe('Above this many prompt tokens, `long` rates apply.')),
  long: z.optional(LongRatesDecl),
});

export const DeploymentDecl = z.strictObject({
  id: Name,
  provider: Name,
  format: Name,
  upstream_model: z.string().check(z.minLength(1), z.maxLength(512)),
  region: z.optional(z.string().check(z.minLength(1))),
  priority: z._default(z.int().check(z.nonnegative()), 1).check(z.describe('Lower is tried first.')),
  weight: z._default(z.int().check(z.nonnegative()), 1).check(z.describe('Share among candidates of equal priority.')),
  pricing: z.optional(PricingDecl).check(z.describe('Required when the deployment is enabled.')),
  enabled: z._default(z.boolean(), true),
});

export const CapabilitiesDecl = z.strictObject({
  tools: z.optional(z.boolean()),
  reasoning: z.optional(z.boolean()),
  context_window: z.optional(z.int().check(z.positive())),
  max_output_tokens: z.optional(z.int().check(z.positive())),
});

/** Public tokenizers a model may declare for local token counts (OpenAI's encodings, gpt-tokenizer). */
export const TokenizerName = z.enum(['o200k_base', 'o200k_harmony', 'cl100k_base', 'p50k_base', 'r50k_base']);

export const ModelDecl = z.strictObject({
  brand: Name,
  kind: z._default(z.enum(['generate', 'embed']), 'generate').check(z.describe('A generation model (default) or an embedding model.')),
  tokenizer: z
    .optional(TokenizerName)
    .check(z.describe("The model's public tokenizer: token counts are computed locally when no deployment has a count_tokens operation.")),
  entry_formats: z.array(Name).check(z.minLength(1)),
  aliases: z._default(z.array(Name), []),
  tags: z._default(z.array(Name), []),
  visibility: z._default(z.enum(['listed', 'hidden']), 'listed'),
  capabilities: z._default(CapabilitiesDecl, {}),
  deployments: z._default(z.array(DeploymentDecl), []),
});

/** The whole registry file. */
export const RegistrySchema = z
  .strictObject({
    wire_formats: z
      .partialRecord(z.enum(KNOWN_FORMATS as [WireFormat, ...WireFormat[]]), WireFormatDecl)
      .check(z.describe('The formats this registry uses, with their families; see DEFAULT_WIRE_FORMATS.')),
    entry_routes: z.array(EntryRouteDecl).check(z.describe('Request paths clients call, and the wire format each speaks.')),
    converters: z._default(z.array(ConverterDecl), []).check(z.describe('Legal translations between formats; identity is implicit.')),
    credentials: z._default(z.record(Name, CredentialDecl), {}).check(z.describe('How secrets are presented upstream: names of secrets, never values.')),
    providers: z.record(Name, ProviderDecl),
    operations: z.array(OperationDecl).check(z.describe('What each provider serves, keyed by (provider, format, family).')),
    models: z.record(Name, ModelDecl),
  })
  .check(z.describe('A tollgate registry: models, deployments, operations and prices.'));

export type RegistryFile = z.output<typeof RegistrySchema>;
export type RegistryFileInput = z.input<typeof RegistrySchema>;
export type WireFormatDecl = z.output<typeof WireFormatDecl>;
export type EntryRouteDecl = z.output<typeof EntryRouteDecl>;
export type ConverterDecl = z.output<typeof ConverterDecl>;
export type CredentialDecl = z.output<typeof CredentialDecl>;
export type ProviderDecl = z.output<typeof ProviderDecl>;
export type OperationDecl = z.output<typeof OperationDecl>;
export type PricingDecl = z.output<typeof PricingDecl>;
export type DeploymentDecl = z.output<typeof DeploymentDecl>;
export type CapabilitiesDecl = z.output<typeof CapabilitiesDecl>;
export type ModelDecl = z.output<typeof ModelDecl>;

/** Top-level sections: which are keyed records and which are lists, and which may be omitted. */
export const SECTIONS = {
  wire_formats: { kind: 'record', item: WireFormatDecl, required: true },
  entry_routes: { kind: 'array', item: EntryRouteDecl, required: true },
  converters: { kind: 'array', item: ConverterDecl, required: false },
  credentials: { kind: 'record', item: CredentialDecl, required: false },
  providers: { kind: 'record', item: ProviderDecl, required: true },
  operations: { kind: 'array', item: OperationDecl, required: true },
  models: { kind: 'record', item: ModelDecl, required: true },
} as const;
