/**
 * The strict zod schema of the `identity` section of the service config. Unknown keys are
 * rejected; every violation is reported.
 */
import * as z from 'zod';

const Id = z.string().min(1, 'must not be empty').max(256, 'at most 256 characters');

/** `sha256:` + 64 hex digits; normalized to lowercase. */
export const KeyHashSchema = z
  .string()
  .regex(/^sha256:[0-9a-fA-F]{64}$/, 'write key hashes as "sha256:" + 64 hex digits')
  .transform((s) => s.toLowerCase());

export const VirtualKeyEntrySchema = z.strictObject({
  hash: KeyHashSchema,
  principal: z.strictObject({
    user: Id,
    tier: Id.optional(),
    bu: Id.optional(),
    leaders: z.array(Id).optional(),
    application: Id.optional(),
    platform: Id.optional(),
    workflow: Id.optional(),
  }),
});

export const ApplicationEntrySchema = z.strictObject({
  id: Id,
  hash: KeyHashSchema,
  bu: Id.optional(),
  tier: Id.optional(),
});

/** Asymmetric JWS algorithms only: never `none`, never HS* (no HS/RS confusion). */
export const JWT_ALGORITHMS = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
export const DEFAULT_JWT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA', 'PS256'];

const Claim = z.string().min(1).max(128);

/** A public verification key: RSA, EC or OKP, no private or symmetric material. */
const KTYS: ReadonlySet<unknown> = new Set(['RSA', 'EC', 'OKP']);
const PublicJwk = z
  .looseObject({ kty: z.string().optional() })
  .refine((k) => KTYS.has(k.kty), 'a JWKS holds public RSA, EC or OKP keys only')
  .refine((k) => !('d' in k) && !('k' in k) && !('p' in k), 'a JWKS must hold public keys only (remove "d")');

const JwksUrl = z.url().refine((s) => {
  const u = new URL(s);
  const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
  return u.protocol === 'https:' || (u.protocol === 'http:' && loopback);
}, 'jwks_url must use https (http only for localhost)');

export const JwtEntrySchema = z
  .strictObject({
    issuer: Id,
    audience: z.union([Id, z.array(Id).min(1)]),
    jwks_url: JwksUrl.optional(),
    jwks: z.strictObject({ keys: z.array(PublicJwk).min(1, 'an inline JWKS needs at least one key') }).optional(),
    algorithms: z.array(z.enum(JWT_ALGORITHMS, 'an asymmetric algorithm (RS*, PS*, ES*, EdDSA); none and HS* are refused')).min(1).optional(),
    claims: z
      .strictObject({
        user: Claim.optional(),
        tier: Claim.optional(),
        bu: Claim.optional(),
        leaders: Claim.optional(),
        application: Claim.optional(),
        platform: Claim.optional(),
        workflow: Claim.optional(),
      })
      .optional(),
    clock_tolerance_s: z.number().int().min(0).max(300).optional(),
    /** Marks a platform-minted token: the user is the subject, the platform an attribution. */
    platform: Id.optional(),
    /** Claim holding the platform's tags (an object of string values). Default `tags`. */
    tags_claim: Claim.optional(),
    /** Tag names a platform may attach; anything else is dropped. */
    allowed_tags: z.array(z.string().min(1).max(64)).max(64).optional(),
  })
  .superRefine((e, ctx) => {
    if ((e.jwks_url === undefined) === (e.jwks === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of jwks_url or jwks' });
    }
    if (e.platform === undefined && (e.allowed_tags !== undefined || e.tags_claim !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['allowed_tags'], message: 'tags are only read from platform tokens (set platform)' });
    }
    if (e.platform !== undefined && e.claims?.platform !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['claims', 'platform'], message: 'a platform token is attributed to its platform; remove claims.platform' });
    }
  });

export const IdentityConfigSchema = z
  .strictObject({
    virtual_keys: z.array(VirtualKeyEntrySchema).optional(),
    jwt: z.array(JwtEntrySchema).optional(),
    applications: z.array(ApplicationEntrySchema).optional(),
  })
  .superRefine((c, ctx) => {
    const seen = new Map<string, string>();
    const check = (hash: string, where: (string | number)[]) => {
      const prev = seen.get(hash);
      if (prev !== undefined) ctx.addIssue({ code: 'custom', path: where, message: `duplicate key hash (also at ${prev})` });
      else seen.set(hash, where.join('.'));
    };
    c.virtual_keys?.forEach((k, i) => check(k.hash, ['virtual_keys', i, 'hash']));
    c.applications?.forEach((a, i) => check(a.hash, ['applications', i, 'hash']));
    const apps = new Set<string>();
    c.applications?.forEach((a, i) => {
      if (apps.has(a.id)) ctx.addIssue({ code: 'custom', path: ['applications', i, 'id'], message: `duplicate application id "${a.id}"` });
      apps.add(a.id);
    });
  });

/** The identity section as written in YAML (hashes in any hex case). */
export type IdentityConfigInput = z.input<typeof IdentityConfigSchema>;
/** The identity section after validation (hashes normalized to lowercase). */
export type IdentityConfig = z.output<typeof IdentityConfigSchema>;
export type JwtEntry = z.output<typeof JwtEntrySchema>;
export type VirtualKeyEntry = z.output<typeof VirtualKeyEntrySchema>;
export type ApplicationEntry = z.output<typeof ApplicationEntrySchema>;

/** Validates an identity section; throws listing every violation. */
export function parseIdentityConfig(input: unknown): IdentityConfig {
  const r = IdentityConfigSchema.safeParse(input);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `identity${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}: ${i.message}`);
  throw new TypeError(`Invalid identity config:\n  ${lines.join('\n  ')}`);
}
