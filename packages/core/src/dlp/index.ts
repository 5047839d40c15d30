/**
 * `@tollgate/core/dlp`: the DLP engine, for `createGateway` of `@tollgate/core/minimal`
 * (`dlp: { engine: dlpEngine }`); `@tollgate/core` passes it by default.
 */
export { dlpEngine, type DlpEngine, type DlpCount, type PreparedDlp, type RequestDlpInput, type RequestDlpResult } from './engine.js';
export type { AnswerDlp } from '../gateway/answer-guard.js';
export type { DlpDeps, DlpStageResult } from '../gateway/policy-stage.js';
export type { DlpStageOptions } from './stage.js';
export type { Recognizer, Finding, Detector, OutputRules } from '@tollgate/policy/detectors';
