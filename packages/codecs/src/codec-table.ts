import type { Codec } from './codec.js';
import { GatewayError } from './errors/gateway-error.js';
import type { WireFormat } from './ir/wire-format.js';

/**
 * Codecs keyed by wire format: the formats a gateway or converter can read and write. Build one
 * from the codecs you import (`codecTable([openaiChatCodec, anthropicMessagesCodec])`) so a
 * bundle holds only those formats; the root entry's `codecs` is the table of all of them.
 */
export type CodecTable = Readonly<Partial<Record<WireFormat, Codec>>>;

/** A table from a list of codecs. Two different codecs for one format are a mistake: it throws. */
export function codecTable(list: readonly Codec[]): CodecTable {
  const table: Partial<Record<WireFormat, Codec>> = {};
  for (const codec of list) {
    const existing = table[codec.format];
    if (existing !== undefined && existing !== codec) throw new TypeError(`Two different codecs for the wire format ${codec.format}.`);
    table[codec.format] = codec;
  }
  return table;
}

/** The table's codec for a format, or a canonical `unsupported_feature` error when it has none. */
export function codecOf(table: CodecTable, format: WireFormat): Codec {
  const codec = table[format];
  if (codec === undefined) throw new GatewayError('unsupported_feature', `The wire format ${format} is not supported.`);
  return codec;
}
