import type { Family, WireFormat } from '@tollgate/codecs/base';
import type { Pricing } from '../pricing/types.js';

/** One violation of a registry file: where (e.g. `models.claude-sonnet.deployments[0].pricing`) and what. */
export interface RegistryIssue {
  path: string;
  message: string;
}

export type LoadRegistryResult = { ok: true; registry: Registry } | { ok: false; errors: RegistryIssue[] };

export interface WireFormatInfo {
  readonly format: WireFormat;
  readonly family: Family;
}

/** What a path does: generate an answer, count a request's input tokens, or embed inputs. */
export type OperationKind = 'generate' | 'count_tokens' | 'embed';

/** OpenAI's public encodings, which a model may declare for local token counts. */
export type TokenizerName = 'o200k_base' | 'o200k_harmony' | 'cl100k_base' | 'p50k_base' | 'r50k_base';

export interface EntryRoute {
  readonly path: string;
  readonly kind: OperationKind;
  readonly format: WireFormat;
  readonly family: Family;
  /** Requests on this path stream regardless of the body (Gemini `:streamGenerateContent`). */
  readonly stream: boolean;
}

/** The entry route a request path matched. */
export interface EntryMatch {
  readonly route: EntryRoute;
  readonly kind: OperationKind;
  readonly format: WireFormat;
  readonly family: Family;
  readonly stream: boolean;
  /** The `{model}` path parameter, URL-decoded, or null when the path has none. */
  readonly model: string | null;
}

export interface Converter {
  readonly from: WireFormat;
  readonly to: WireFormat;
}

/**
 * How a credential is presented upstream. `secret` (and the AWS keys) name secrets; their values
 * are never in the registry.
 */
export type Credential =
  | { readonly name: string; readonly kind: 'header'; readonly header: string; readonly secret: string }
  | { readonly name: string; readonly kind: 'bearer'; readonly secret: string }
  | { readonly name: string; readonly kind: 'query'; readonly param: string; readonly secret: string }
  | AwsSigV4Credential
  | GoogleServiceAccountCredential;

/** A Google OAuth access token minted from a service account key (Vertex AI). `secret` names the JSON key. */
export interface GoogleServiceAccountCredential {
  readonly name: string;
  readonly kind: 'google_service_account';
  readonly secret: string;
  readonly scopes: readonly string[];
}

/** Every call signed with AWS Signature Version 4. The three keys name secrets. */
export interface AwsSigV4Credential {
  readonly name: string;
  readonly kind: 'aws_sigv4';
  readonly region: string;
  readonly service: 'bedrock';
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string | null;
}

export interface Provider {
  readonly id: string;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  readonly credential: Credential | null;
  readonly headers: Readonly<Record<string, string>>;
}

export interface Operation {
  readonly kind: OperationKind;
  readonly provider: string;
  readonly format: WireFormat;
  readonly family: Family;
  /** Path template; `{model}` stands for the deployment's upstream model. */
  readonly path: string;
  readonly streamPath: string | null;
}

export interface Deployment {
  readonly id: string;
  /** The canonical id of the model it serves. */
  readonly model: string;
  readonly provider: string;
  readonly format: WireFormat;
  readonly upstreamModel: string;
  readonly region: string | null;
  /** Lower is tried first. */
  readonly priority: number;
  readonly weight: number;
  /** Always present on enabled deployments. */
  readonly pricing: Pricing | null;
  readonly enabled: boolean;
}

export interface Capabilities {
  readonly tools?: boolean;
  readonly reasoning?: boolean;
  readonly context_window?: number;
  readonly max_output_tokens?: number;
}

export type Visibility = 'listed' | 'hidden';

export interface Model {
  readonly id: string;
  readonly brand: string;
  /** A generation model or an embedding model: which entry routes and operations serve it. */
  readonly kind: 'generate' | 'embed';
  /** The public tokenizer for local token counts, or null. */
  readonly tokenizer: TokenizerName | null;
  readonly entryFormats: readonly WireFormat[];
  readonly aliases: readonly string[];
  /** The declared tags, and `all`. */
  readonly tags: readonly string[];
  readonly visibility: Visibility;
  readonly capabilities: Capabilities;
  /** Every deployment, in file order, disabled ones included. */
  readonly deployments: readonly Deployment[];
  /** No enabled deployment: valid, but neither served nor listed. */
  readonly staged: boolean;
}

/** identity: same format, bytes pass; raw: same issuer and family, only the envelope changes; translate: via the IR. */
export type ConversionPlan = 'identity' | 'raw' | 'translate';

/** One way to serve a (model, entry format): where to send it and how to convert. */
export interface Candidate {
  readonly model: string;
  readonly deployment: Deployment;
  readonly provider: Provider;
  readonly operation: Operation;
  readonly entryFormat: WireFormat;
  readonly upstreamFormat: WireFormat;
  readonly plan: ConversionPlan;
  /** The operation path with `{model}` replaced by the upstream model. */
  readonly path: string;
  /** The stream path, substituted the same way; equals `path` when the operation has none. */
  readonly streamPath: string;
  /** `provider.baseUrl + path`. */
  readonly url: string;
  /** `provider.baseUrl + streamPath`. */
  readonly streamUrl: string;
  readonly credential: Credential | null;
}

/**
 * A loaded, validated registry. Plain readonly data (frozen); lookups go through
 * `resolveEntry`, `resolveModel` and `candidates`, which use indexes built at load time.
 * `models` holds every model, staged ones included, keyed by canonical id, so the registry
 * can be handed to policy functions as their registry view.
 */
export interface Registry {
  /** `sha256:<hex>` of the canonical JSON of the source, for usage records. */
  readonly revision: string;
  readonly wireFormats: Readonly<Partial<Record<WireFormat, WireFormatInfo>>>;
  readonly entryRoutes: readonly EntryRoute[];
  readonly converters: readonly Converter[];
  readonly credentials: Readonly<Record<string, Credential>>;
  readonly providers: Readonly<Record<string, Provider>>;
  readonly operations: readonly Operation[];
  readonly models: Readonly<Record<string, Model>>;
  readonly deployments: Readonly<Record<string, Deployment>>;
}
