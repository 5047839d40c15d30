/**
 * English zod messages for the schemas, which use zod/mini: zod/mini loads no locale, so
 * every message would read "Invalid input" (classic `zod` sets an English locale when
 * imported). Called at the top of each schema module; an error locale the application
 * configured first is left alone.
 *
 * The messages are zod's own English ones (`zod/v4/locales/en`), word for word, for every
 * issue the schemas raise; kept here rather than imported to keep the edge bundle small: of
 * the string formats zod names, only those the schemas use (`url`, `regex`) keep their English
 * names, any other format is reported as "Invalid <format>".
 */
import { config, type core } from 'zod/mini';

const UNITS: Record<string, string> = { string: 'characters', file: 'bytes', array: 'items', set: 'items', map: 'entries' };
const FORMATS: Record<string, string> = { regex: 'input', url: 'URL' };

/** How zod names the type of a value (`util.parsedType`). */
function parsedType(data: unknown): string {
  if (typeof data === 'number') return Number.isNaN(data) ? 'nan' : 'number';
  if (typeof data !== 'object') return typeof data;
  if (data === null) return 'null';
  if (Array.isArray(data)) return 'array';
  const proto: unknown = Object.getPrototypeOf(data);
  return proto !== Object.prototype && 'constructor' in data && typeof data.constructor === 'function' ? data.constructor.name : 'object';
}

/** A value as zod quotes it (`util.stringifyPrimitive`), and a list of them (`util.joinValues`). */
const quoted = (value: unknown): string => (typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? `"${value}"` : String(value));
const joined = (values: readonly unknown[], separator: string): string => values.map(quoted).join(separator);

function typeName(type: string, input?: unknown): string {
  if (type === 'number' && typeof input === 'number' && !Number.isFinite(input)) return String(input);
  return type === 'nan' ? 'NaN' : type;
}

/** The message of one issue, as zod's English locale writes it. */
export function englishMessage(issue: core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `Invalid input: expected ${typeName(issue.expected)}, received ${typeName(parsedType(issue.input), issue.input)}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `Invalid input: expected ${quoted(issue.values[0])}` : `Invalid option: expected one of ${joined(issue.values, '|')}`;
    case 'too_big':
    case 'too_small': {
      const big = issue.code === 'too_big';
      const adj = issue.exact ? 'exactly ' : issue.inclusive ? (big ? '<=' : '>=') : big ? '<' : '>';
      const unit = UNITS[issue.origin ?? ''];
      const bound = String(big ? issue.maximum : issue.minimum);
      const origin = big ? (issue.origin ?? 'value') : issue.origin;
      return `Too ${big ? 'big' : 'small'}: expected ${origin} ${unit === undefined ? `to be ${adj}${bound}` : `to have ${adj}${bound} ${unit}`}`;
    }
    case 'invalid_format': {
      const i = issue as core.$ZodRawIssue<core.$ZodIssueInvalidStringFormat> & { prefix?: string; suffix?: string; includes?: string };
      if (i.format === 'starts_with') return `Invalid string: must start with "${i.prefix}"`;
      if (i.format === 'ends_with') return `Invalid string: must end with "${i.suffix}"`;
      if (i.format === 'includes') return `Invalid string: must include "${i.includes}"`;
      if (i.format === 'regex') return `Invalid string: must match pattern ${i.pattern}`;
      return `Invalid ${FORMATS[i.format] ?? i.format}`;
    }
    case 'not_multiple_of':
      return `Invalid number: must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${joined(issue.keys, ', ')}`;
    case 'invalid_key':
      return `Invalid key in ${issue.origin}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown }).options;
      if (Array.isArray(options) && options.length > 0) return `Invalid discriminator value. Expected ${options.map((o) => `'${String(o)}'`).join(' | ')}`;
      return issue.inclusive === false ? 'Invalid input: more than one option matched' : 'Invalid input';
    }
    case 'invalid_element':
      return `Invalid value in ${issue.origin}`;
    default:
      return 'Invalid input';
  }
}

export function useEnglishErrors(): void {
  if (config().localeError === undefined) config({ localeError: englishMessage });
}
