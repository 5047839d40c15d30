/**
 * Checks on the wiring sections: wire formats, entry routes, converters, providers (and how
 * their credentials fit) and operations.
 */
import type { Family, WireFormat } from '@tollgate/codecs/base';
import { didYouMean } from '@tollgate/policy';
import {
  BODY_STREAMED_FORMATS,
  DEFAULT_WIRE_FORMATS,
  formatHasKind,
  isKnownFormat,
  KIND_FORMATS,
  KNOWN_FORMATS,
  templateProblems,
  URL_STREAMED_FORMATS,
} from './formats.js';
import type { OperationKind } from './types.js';
import type { IssueList, PathSegment } from './issues.js';
import type { ParsedFile } from './parse.js';

/**
 * Headers a provider's static `headers` may not set: they frame the body or describe the
 * connection and target, which the transport owns. The built-in client ignores some, `fetch`
 * fails the call on others, and none can mean anything the registry should decide.
 */
const TRANSPORT_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/** The streaming endpoint of each URL-streamed format, for the refusal's example. */
const STREAM_PATH_EXAMPLE: Partial<Record<WireFormat, string>> = {
  gemini_generate_content: '"/v1beta/models/{model}:streamGenerateContent?alt=sse"',
  bedrock_converse: '"/model/{model}/converse-stream"',
  anthropic_vertex: '"/{model}:streamRawPredict"',
};

/** Lookups derived from the parsed file, shared by the checks and the index builder. */
export interface Facts {
  /** True when `name` is a key of `section`, or when the section itself is unreadable (no cascade). */
  declared(section: 'wire_formats' | 'credentials' | 'providers', name: string): boolean;
  /** `section "x" is not declared in section`, with the nearest declared name when one is close. */
  undeclared(section: 'wire_formats' | 'credentials' | 'providers', name: string): string;
  familyOf(format: string): Family | undefined;
  hasOperation(provider: string, format: string, family: Family, kind?: OperationKind): boolean;
  hasConverter(from: string, to: string): boolean;
  /** False when a structural error could hide an operation or converter. */
  readonly operationsComplete: boolean;
  readonly convertersComplete: boolean;
}

export const operationKey = (provider: string, format: string, family: string, kind: OperationKind = 'generate'): string =>
  `${provider}\u0000${format}\u0000${family}\u0000${kind}`;
const converterKey = (from: string, to: string): string => `${from}\u0000${to}`;

export function buildFacts(file: ParsedFile): Facts {
  const operations = new Set(file.operations.map((o) => operationKey(o.provider, o.format, o.family, o.kind)));
  const converters = new Set(file.converters.map((c) => converterKey(c.from, c.to)));
  return {
    declared: (section, name) => file[section].has(name) || file.incomplete.has(section),
    undeclared: (section, name) => {
      const what = section === 'wire_formats' ? 'wire format' : section === 'credentials' ? 'credential' : 'provider';
      const known = section === 'wire_formats' ? new Set([...file.wire_formats.keys(), ...KNOWN_FORMATS]) : file[section].keys();
      return `${what} "${name}" is not declared in ${section}${didYouMean(name, known)}`;
    },
    // A format's family is fixed by the format; the file's declaration is only checked against it.
    familyOf: (format) => (isKnownFormat(format) && file.wire_formats.has(format) ? DEFAULT_WIRE_FORMATS[format].family : undefined),
    hasOperation: (provider, format, family, kind) => operations.has(operationKey(provider, format, family, kind)),
    hasConverter: (from, to) => converters.has(converterKey(from, to)),
    operationsComplete: !file.incomplete.has('operations') && !file.incomplete.has('wire_formats'),
    convertersComplete: !file.incomplete.has('converters'),
  };
}

/** Header names that carry secrets: they belong in a credential, never in static headers. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie']);

export function validateWiring(file: ParsedFile, facts: Facts, issues: IssueList): void {
  const formatRef = (path: PathSegment[], format: string): void => {
    if (!facts.declared('wire_formats', format)) issues.add(path, facts.undeclared('wire_formats', format));
  };

  for (const [name, decl] of file.wire_formats) {
    if (!isKnownFormat(name)) {
      const hint = didYouMean(name, KNOWN_FORMATS);
      issues.add(['wire_formats', name], `unknown wire format "${name}"${hint === '' ? `; tollgate speaks ${KNOWN_FORMATS.join(', ')}` : hint}`);
    } else if (decl !== null && decl.family !== DEFAULT_WIRE_FORMATS[name].family) {
      issues.add(['wire_formats', name, 'family'], `the family of ${name} is "${DEFAULT_WIRE_FORMATS[name].family}", not "${decl.family}"`);
    }
  }

  const routePaths = new Map<string, number>();
  file.entry_routes.forEach((route, i) => {
    formatRef(['entry_routes', i, 'format'], route.format);
    const t = templateProblems(route.path);
    if (t.unknown.length > 0 || t.strayBrace || t.modelCount > 1) {
      issues.add(['entry_routes', i, 'path'], 'an entry path may contain only one placeholder, {model}');
    }
    if (route.kind !== 'generate' && isKnownFormat(route.format) && !formatHasKind(route.format, route.kind)) {
      issues.add(
        ['entry_routes', i, 'kind'],
        `${route.format} has no ${route.kind} endpoint; ${route.kind} routes take ${KIND_FORMATS[route.kind].join(', ')}`,
      );
    }
    if (route.kind !== 'generate' && route.stream === true) issues.add(['entry_routes', i, 'stream'], `a ${route.kind} route does not stream`);
    else if (route.stream === true && BODY_STREAMED_FORMATS.has(route.format as WireFormat)) {
      // The body's own `stream` flag decides for these formats: a route that claimed to would be overruled.
      issues.add(
        ['entry_routes', i, 'stream'],
        `${route.format} requests say whether to stream in their body ("stream": true); leave stream out here (it is for formats that stream by URL: gemini_generate_content, bedrock_converse)`,
      );
    }
    const earlier = routePaths.get(route.path);
    if (earlier !== undefined) issues.add(['entry_routes', i, 'path'], `duplicate entry route: entry_routes[${earlier}] has the same path`);
    else routePaths.set(route.path, i);
  });

  const converters = new Map<string, number>();
  file.converters.forEach((c, i) => {
    formatRef(['converters', i, 'from'], c.from);
    formatRef(['converters', i, 'to'], c.to);
    if (c.from === c.to) issues.add(['converters', i], `a converter from ${c.from} to itself is implicit (identity); remove it`);
    const key = converterKey(c.from, c.to);
    const earlier = converters.get(key);
    if (earlier !== undefined) issues.add(['converters', i], `duplicate converter: same as converters[${earlier}]`);
    else converters.set(key, i);
  });

  for (const [name, provider] of file.providers) {
    if (provider === null) continue;
    const path = ['providers', name];
    if (!canParseUrl(provider.base_url)) issues.add([...path, 'base_url'], `invalid URL "${provider.base_url}"`);
    const credential = provider.credential === undefined ? undefined : file.credentials.get(provider.credential);
    if (provider.credential !== undefined && !facts.declared('credentials', provider.credential)) {
      issues.add([...path, 'credential'], facts.undeclared('credentials', provider.credential));
    }
    for (const header of Object.keys(provider.headers ?? {})) {
      const lower = header.toLowerCase();
      if (TRANSPORT_HEADERS.has(lower)) {
        issues.add(
          [...path, 'headers', header],
          `static header "${header}" is the transport's to set (it frames or routes the request, and the clients treat it differently); remove it`,
        );
      } else if (SECRET_HEADERS.has(lower)) {
        issues.add([...path, 'headers', header], `static header "${header}" would carry a secret; declare a credential instead`);
      } else if (credential?.kind === 'header' && credential.header.toLowerCase() === lower) {
        issues.add([...path, 'headers', header], `static header "${header}" collides with the header of credential "${provider.credential}"`);
      }
    }
  }

  const operations = new Map<string, number>();
  file.operations.forEach((op, i) => {
    const path: PathSegment[] = ['operations', i];
    if (!facts.declared('providers', op.provider)) issues.add([...path, 'provider'], facts.undeclared('providers', op.provider));
    formatRef([...path, 'format'], op.format);
    const family = facts.familyOf(op.format);
    if (family !== undefined && family !== op.family) {
      issues.add([...path, 'family'], `format ${op.format} belongs to family "${family}", so this operation would never be used`);
    }
    for (const [key, template] of [
      ['path', op.path],
      ['stream_path', op.stream_path],
    ] as const) {
      if (template === undefined) continue;
      const t = templateProblems(template);
      if (t.unknown.length > 0 || t.strayBrace) issues.add([...path, key], 'the only placeholder an operation path may contain is {model}');
    }
    if (op.kind === 'generate' && op.stream_path === undefined && URL_STREAMED_FORMATS.has(op.format as WireFormat)) {
      issues.add(
        [...path, 'stream_path'],
        `${op.format} streams from its own endpoint: give stream_path (e.g. ${STREAM_PATH_EXAMPLE[op.format as WireFormat] ?? '…'}), or streamed requests would reach the whole-answer path`,
      );
    }
    if (op.kind !== 'generate') {
      if (isKnownFormat(op.format) && !formatHasKind(op.format, op.kind)) {
        issues.add([...path, 'kind'], `${op.format} has no ${op.kind} endpoint; ${op.kind} operations take ${KIND_FORMATS[op.kind].join(', ')}`);
      }
      if (op.stream_path !== undefined) issues.add([...path, 'stream_path'], `a ${op.kind} operation does not stream`);
      // The Gemini embeddings codec writes batchEmbedContents requests (one input or many).
      if (op.kind === 'embed' && op.format === 'gemini_generate_content' && !op.path.endsWith(':batchEmbedContents')) {
        issues.add([...path, 'path'], 'a Gemini embed operation calls :batchEmbedContents (the gateway sends every embedding request as a batch)');
      }
    }
    const k = operationKey(op.provider, op.format, op.family, op.kind);
    const earlier = operations.get(k);
    if (earlier !== undefined) {
      issues.add(
        path,
        `duplicate operation for (${op.provider}, ${op.format}, ${op.family}${op.kind === 'generate' ? '' : `, ${op.kind}`}): same key as operations[${earlier}]`,
      );
    } else operations.set(k, i);
  });
}

function canParseUrl(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}
