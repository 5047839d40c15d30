/**
 * `@tollgate/core/content`: the policy's tool allow lists and prompts, for `createGateway` of
 * `@tollgate/core/minimal` (`content: { engine: contentEngine }`); `@tollgate/core` uses it by
 * default.
 */
export { contentEngine } from './content/engine.js';
export type { ContentEngine, ContentInput, ToolsResult } from './gateway/policy-stage.js';
export type { ToolGuard } from './gateway/answer-guard.js';
