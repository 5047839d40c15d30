import type { AssistantContentPart } from './content.js';
import type { FinishReason } from './finish-reason.js';
import type { Usage } from './usage.js';
import type { VendorFields } from './request.js';

/** A complete (non-streamed) model response in canonical form. */
export interface Response {
  id: string;
  model: string;
  /** Unix seconds, when the format carries it. */
  created?: number;
  content: AssistantContentPart[];
  finishReason: FinishReason;
  /** The stop sequence that ended generation, when one did. */
  stopSequence?: string | null;
  usage: Usage | null;
  vendor?: VendorFields;
}
