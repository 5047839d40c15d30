import type { Issuer } from '@tollgate/codecs/base';
import { FORMAT_ISSUER } from './formats.js';
import type { Model, Registry } from './types.js';

/** Which vendor's `GET /v1/models` shape to render. */
export type DiscoveryFormat = 'openai' | 'anthropic' | 'gemini';

export interface OpenAIModelList {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string }[];
}

export interface AnthropicModelList {
  data: { type: 'model'; id: string; display_name: string; created_at: string }[];
  has_more: false;
  first_id: string | null;
  last_id: string | null;
}

export interface GeminiModelList {
  models: {
    name: string;
    displayName: string;
    inputTokenLimit?: number;
    outputTokenLimit?: number;
    supportedGenerationMethods: string[];
  }[];
}

export interface ModelListByFormat {
  openai: OpenAIModelList;
  anthropic: AnthropicModelList;
  gemini: GeminiModelList;
}

const ISSUER: Record<DiscoveryFormat, Issuer> = { openai: 'openai', anthropic: 'anthropic', gemini: 'google' };

/** The registry carries no release dates; discovery reports the epoch. */
const EPOCH_ISO = '1970-01-01T00:00:00Z';

/**
 * The body of `GET /v1/models` in the vendor's shape, rendered from the registry: the models
 * `canUse` admits that are served (not staged), listed (not hidden) and reachable in that
 * vendor's wire formats (an Anthropic SDK sees the models that advertise an Anthropic entry
 * format), in registry order. Aliases are not listed.
 */
export function listModels<F extends DiscoveryFormat>(registry: Registry, format: F, canUse: (modelId: string) => boolean): ModelListByFormat[F] {
  const issuer = ISSUER[format];
  const models: Model[] = [];
  for (const id in registry.models) {
    const m = registry.models[id] as Model;
    if (m.staged || m.visibility !== 'listed') continue;
    if (!m.entryFormats.some((f) => FORMAT_ISSUER[f] === issuer)) continue;
    if (canUse(m.id)) models.push(m);
  }
  return render(format, models) as ModelListByFormat[F];
}

function render(format: DiscoveryFormat, models: Model[]): ModelListByFormat[DiscoveryFormat] {
  switch (format) {
    case 'openai':
      return { object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', created: 0, owned_by: m.brand })) };
    case 'anthropic':
      return {
        data: models.map((m) => ({ type: 'model' as const, id: m.id, display_name: m.id, created_at: EPOCH_ISO })),
        has_more: false,
        first_id: models[0]?.id ?? null,
        last_id: models[models.length - 1]?.id ?? null,
      };
    case 'gemini':
      return {
        models: models.map((m) => ({
          name: `models/${m.id}`,
          displayName: m.id,
          ...(m.capabilities.context_window === undefined ? {} : { inputTokenLimit: m.capabilities.context_window }),
          ...(m.capabilities.max_output_tokens === undefined ? {} : { outputTokenLimit: m.capabilities.max_output_tokens }),
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent'],
        })),
      };
  }
}
