/**
 * Structural parsing, one entry at a time, so a structural error in one entry does not hide
 * the cross-reference errors of the others: broken entries are reported and remembered, and
 * later checks do not cascade from them.
 */
import type * as z from 'zod/mini';
import { didYouMean, schemaHints } from '@tollgate/policy';
import { IssueList, type PathSegment } from './issues.js';
import {
  Name,
  SECTIONS,
  type ConverterDecl,
  type CredentialDecl,
  type EntryRouteDecl,
  type ModelDecl,
  type OperationDecl,
  type ProviderDecl,
  type WireFormatDecl,
} from './runtime-schema.js';

type SectionName = keyof typeof SECTIONS;

/** What parsed, with a record of what did not. */
export interface ParsedFile {
  wire_formats: Map<string, WireFormatDecl | null>;
  credentials: Map<string, CredentialDecl | null>;
  providers: Map<string, ProviderDecl | null>;
  models: Map<string, ModelDecl | null>;
  entry_routes: EntryRouteDecl[];
  converters: ConverterDecl[];
  operations: OperationDecl[];
  /** The aliases of structurally broken models, where readable: they still take part in collision checks. */
  salvagedAliases: Map<string, string[]>;
  /** Lists with a structurally broken item (or missing): checks that assert absence skip them. */
  incomplete: Set<'entry_routes' | 'converters' | 'operations' | 'wire_formats' | 'credentials' | 'providers' | 'models'>;
}

export function parseFile(raw: unknown, issues: IssueList): ParsedFile {
  const out: ParsedFile = {
    wire_formats: new Map(),
    credentials: new Map(),
    providers: new Map(),
    models: new Map(),
    entry_routes: [],
    converters: [],
    operations: [],
    salvagedAliases: new Map(),
    incomplete: new Set(),
  };
  if (!isRecord(raw)) {
    issues.add([], 'the registry must be an object (a YAML mapping)');
    for (const name of Object.keys(SECTIONS) as SectionName[]) out.incomplete.add(name);
    return out;
  }
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(SECTIONS, key)) {
      const hint = didYouMean(key, Object.keys(SECTIONS));
      issues.add([key], `unknown key "${key}"${hint === '' ? `; expected one of ${Object.keys(SECTIONS).join(', ')}` : hint}`);
    }
  }
  parseRecord(raw, 'wire_formats', out.wire_formats, out, issues);
  parseRecord(raw, 'credentials', out.credentials, out, issues);
  parseRecord(raw, 'providers', out.providers, out, issues);
  parseRecord(raw, 'models', out.models, out, issues);
  parseArray(raw, 'entry_routes', out.entry_routes, out, issues);
  parseArray(raw, 'converters', out.converters, out, issues);
  parseArray(raw, 'operations', out.operations, out, issues);
  return out;
}

function parseRecord<T>(
  raw: Record<string, unknown>,
  section: 'wire_formats' | 'credentials' | 'providers' | 'models',
  into: Map<string, T | null>,
  out: ParsedFile,
  issues: IssueList,
): void {
  const spec = SECTIONS[section];
  const value = raw[section];
  if (value === undefined) {
    if (spec.required) {
      issues.add([section], `missing required key "${section}"`);
      out.incomplete.add(section);
    }
    return;
  }
  if (!isRecord(value)) {
    issues.add([section], `"${section}" must be a mapping of name to entry`);
    out.incomplete.add(section);
    return;
  }
  for (const [name, item] of Object.entries(value)) {
    const nameOk = Name.safeParse(name);
    if (!nameOk.success) issues.add([section, name], `invalid name: ${nameOk.error.issues[0]?.message ?? 'invalid'}`);
    const hints = schemaHints();
    const parsed = (spec.item as unknown as z.ZodMiniType<T>).safeParse(item, { error: hints.error });
    if (parsed.success && nameOk.success) {
      into.set(name, parsed.data);
    } else {
      into.set(name, null);
      if (!parsed.success) reportZod(parsed.error, [section, name], issues, hints.unknownKey);
      if (section === 'models') salvageAliases(name, item, out);
    }
  }
}

function parseArray<T>(
  raw: Record<string, unknown>,
  section: 'entry_routes' | 'converters' | 'operations',
  into: T[],
  out: ParsedFile,
  issues: IssueList,
): void {
  const spec = SECTIONS[section];
  const value = raw[section];
  if (value === undefined) {
    if (spec.required) {
      issues.add([section], `missing required key "${section}"`);
      out.incomplete.add(section);
    }
    return;
  }
  if (!Array.isArray(value)) {
    issues.add([section], `"${section}" must be a list`);
    out.incomplete.add(section);
    return;
  }
  value.forEach((item, index) => {
    const hints = schemaHints();
    const parsed = (spec.item as unknown as z.ZodMiniType<T>).safeParse(item, { error: hints.error });
    if (parsed.success) {
      into.push(parsed.data);
    } else {
      out.incomplete.add(section);
      reportZod(parsed.error, [section, index], issues, hints.unknownKey);
    }
  });
}

function reportZod(
  error: z.core.$ZodError,
  prefix: readonly PathSegment[],
  issues: IssueList,
  unknownKey: (path: readonly PropertyKey[], key: string) => string,
): void {
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.add([...path, key], unknownKey(issue.path, key));
    } else if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
      issues.add(path, `missing required key "${String(path[path.length - 1])}"`);
    } else {
      issues.add(path, issue.message);
    }
  }
}

function salvageAliases(name: string, item: unknown, out: ParsedFile): void {
  const aliases = isRecord(item) ? item.aliases : undefined;
  if (Array.isArray(aliases) && aliases.every((a): a is string => typeof a === 'string')) out.salvagedAliases.set(name, aliases);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
