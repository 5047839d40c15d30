import type { ConversionWarning } from '../ir/warning.js';

export function dropped(path: string, why: string): ConversionWarning {
  return { code: 'dropped_field', path, message: `${path} was dropped: ${why}` };
}

export function signatureDropped(path: string, issuer: string, target: string): ConversionWarning {
  return {
    code: 'signature_dropped',
    path,
    message: `${path} was issued by ${issuer} and cannot be sent to ${target}; it was dropped.`,
  };
}

export function lossy(path: string, message: string): ConversionWarning {
  return { code: 'lossy_conversion', path, message };
}
