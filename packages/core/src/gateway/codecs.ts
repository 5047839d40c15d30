import { codecTable, type Codec, type CodecTable, type WireFormat } from '@tollgate/codecs/base';
import type { Registry } from '../registry/index.js';
import { GatewayConfigError, type ConfigIssue } from './config-error.js';

/** Where a format's codec is imported from, for the hint in a refusal: `openaiChatCodec from '@tollgate/codecs/openai-chat'`. */
function codecImport(format: WireFormat): string {
  const subpath = format === 'gemini_generate_content' ? 'gemini' : format.replace('_', '-');
  const name = subpath.replace(/-(\w)/, (_, c: string) => c.toUpperCase());
  return `${name}Codec from '@tollgate/codecs/${subpath}'`;
}

function isCodec(value: unknown): value is Codec {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Partial<Record<keyof Codec, unknown>>;
  return (
    typeof c.format === 'string' && typeof c.decodeRequest === 'function' && typeof c.createStreamEncoder === 'function' && typeof c.renderError === 'function'
  );
}

/** The gateway's codec table from `options.codecs`, or a refusal naming what is wrong with the list. */
export function codecTableFrom(list: unknown): CodecTable {
  const issues: ConfigIssue[] = [];
  if (!Array.isArray(list) || list.length === 0) {
    issues.push({ path: 'codecs', message: `a non-empty list of codecs, e.g. [openaiChatCodec] with ${codecImport('openai_chat')}` });
  } else {
    const seen = new Map<string, unknown>();
    list.forEach((codec: unknown, i) => {
      if (!isCodec(codec)) issues.push({ path: `codecs[${i}]`, message: 'not a codec (import one from @tollgate/codecs/<format>)' });
      else if (seen.has(codec.format) && seen.get(codec.format) !== codec)
        issues.push({ path: `codecs[${i}]`, message: `a second, different codec for ${codec.format}` });
      else seen.set(codec.format, codec);
    });
  }
  if (issues.length > 0) throw new GatewayConfigError('options', issues);
  return codecTable(list as Codec[]);
}

/**
 * Refuse to start when the registry needs a format the gateway has no codec for: an entry route
 * (the gateway could not read its requests) or an enabled deployment (it could not call it).
 * One issue per missing format, naming what needs it and where its codec is imported from.
 */
export function assertCodecsCover(registry: Registry, codecs: CodecTable): void {
  const needs = new Map<WireFormat, string[]>();
  const need = (format: WireFormat, by: string) => {
    if (codecs[format] !== undefined) return;
    const list = needs.get(format) ?? [];
    list.push(by);
    needs.set(format, list);
  };
  for (const route of registry.entryRoutes) need(route.format, `entry route ${route.path}`);
  for (const d of Object.values(registry.deployments)) if (d.enabled) need(d.format, `deployment ${d.id}`);
  if (needs.size === 0) return;
  const have = Object.keys(codecs).join(', ');
  const issues = [...needs].map(([format, by]) => ({
    path: 'codecs',
    message: `no codec for ${format}, needed by ${by.join(', ')}: add ${codecImport(format)} (the gateway has ${have})`,
  }));
  throw new GatewayConfigError('options', issues);
}

/** The codec an error is rendered with: the caller's format when the gateway has it, else OpenAI Chat, else any. */
export function errorCodec(codecs: CodecTable, format: WireFormat | null): Codec {
  return (format === null ? undefined : codecs[format]) ?? codecs.openai_chat ?? Object.values(codecs)[0]!;
}
