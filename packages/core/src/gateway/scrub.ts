/**
 * Remove what an upstream error message must not leak to callers: keys, tokens, account and
 * project identifiers, ARNs, organisation ids.
 */
const PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_-]{6,}/g, '[redacted-key]'],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, '[redacted-key]'],
  [/\btg_[A-Za-z0-9_-]{16,}/g, '[redacted-key]'],
  [/\b(?:Bearer|bearer)\s+[A-Za-z0-9._~+/=-]{8,}/g, 'Bearer [redacted]'],
  [/\barn:aws[a-z-]*:[^\s"',;]+/g, '[redacted-arn]'],
  [/\borg-[A-Za-z0-9]{6,}/g, '[redacted-org]'],
  [/\bproj_[A-Za-z0-9]{6,}/g, '[redacted-project]'],
  [/\bprojects\/[^\s/"',;]+/g, 'projects/[redacted]'],
  [/\b(?:key|api_key|apikey|token)=[^\s&"',;]+/gi, 'key=[redacted]'],
  [/\b\d{9,}\b/g, '[redacted-id]'],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[redacted-email]'],
];

export function scrubMessage(message: string): string {
  let out = message.length > 2000 ? `${message.slice(0, 2000)}…` : message;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
