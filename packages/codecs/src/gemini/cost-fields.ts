/** Gemini fields that change what a request costs beyond its canonical form. */
import { choiceCount, plainCost, type CostFields } from '../ir/cost.js';
import type { Request } from '../ir/request.js';
import { isObject } from '../shared/guards.js';
import { camelKeys, FORMAT } from './schemas.js';

/**
 * - `generationConfig.candidateCount`: every candidate is billed its own output (multiplier).
 * - `cachedContent`: the upstream reads cached input the body does not hold.
 * - Built-in tools (Google Search grounding, code execution, URL context, Maps, file search, …)
 *   run on the upstream: billed per use, their results as input of further turns.
 * - `responseModalities` with IMAGE or AUDIO, or a `speechConfig`: output billed at image or audio
 *   rates the registry does not price.
 */
export function costFields(request: Request): CostFields {
  const out = plainCost();
  const vendor = request.vendor;
  if (vendor === undefined || vendor.format !== FORMAT) return out;
  const f = vendor.fields;
  const config = isObject(f.generationConfig) ? camelKeys(f.generationConfig) : {};
  if (config.candidateCount !== undefined && config.candidateCount !== null) {
    const n = choiceCount(config.candidateCount);
    if (n === undefined)
      out.unbounded.push({ field: 'generationConfig.candidateCount', reason: 'it must be a whole number of candidates (each is billed its own output)' });
    else out.outputMultiplier = n;
  }
  const modalities = Array.isArray(config.responseModalities) ? config.responseModalities.map((m) => String(m).toUpperCase()) : [];
  if (modalities.includes('IMAGE') || modalities.includes('AUDIO')) {
    out.unbounded.push({ field: 'generationConfig.responseModalities', reason: 'image and audio output are billed at rates the registry does not price' });
  } else if (config.speechConfig !== undefined && config.speechConfig !== null) {
    out.unbounded.push({ field: 'generationConfig.speechConfig', reason: 'audio output is billed at rates the registry does not price' });
  }
  if (f.cachedContent !== undefined && f.cachedContent !== null && f.cachedContent !== '') {
    out.unsizedInput.push({ field: 'cachedContent', reason: 'the upstream adds the cached content to the input' });
  }
  if (Array.isArray(f.tools)) {
    const seen = new Set<string>();
    for (const tool of f.tools) {
      if (!isObject(tool)) continue;
      for (const name of Object.keys(tool)) {
        if (seen.has(name)) continue;
        seen.add(name);
        out.unbounded.push({
          field: `tools.${name}`,
          reason: `the built-in tool ${name} runs on the upstream: billed per use, its results as input of further turns, which no request field bounds`,
        });
      }
    }
  }
  return out;
}
