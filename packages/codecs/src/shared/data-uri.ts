import type { MediaSource } from '../ir/content.js';

const DATA_URI = /^data:([^;,]+)?((?:;[^;,]+)*?);base64,(.*)$/s;

/** `data:image/png;base64,AAAA` → a base64 media source; anything else is a URL source. */
export function sourceFromUrl(url: string): MediaSource {
  const match = DATA_URI.exec(url);
  if (match !== null) return { kind: 'base64', mediaType: match[1] ?? 'application/octet-stream', data: match[3] ?? '' };
  return { kind: 'url', url };
}

/** A media source as a URL: data URI for inline bytes. File ids have no URL form (null). */
export function urlFromSource(source: MediaSource): string | null {
  if (source.kind === 'base64') return `data:${source.mediaType};base64,${source.data}`;
  if (source.kind === 'url') return source.url;
  return null;
}
