/** The entity types the built-in DLP detectors find (`@tollgate/policy/detectors`). */
export const BUILTIN_DLP_ENTITIES = ['email', 'phone', 'credit_card', 'iban', 'us_ssn', 'ipv4', 'ipv6', 'secret'] as const;

export type BuiltinDlpEntity = (typeof BUILTIN_DLP_ENTITIES)[number];
