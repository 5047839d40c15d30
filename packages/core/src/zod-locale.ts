/**
 * English zod messages for the schemas (zod/mini loads no locale): the same ones as the policy
 * schemas', see `useEnglishErrors` of `@tollgate/policy`.
 */
export { useEnglishErrors } from '@tollgate/policy';
