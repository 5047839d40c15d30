/**
 * The strict zod schema of the `identity` section of the service config. Unknown keys are
 * rejected; every violation is reported. Written with zod/mini (functional checks).
 */
import * as z from 'zod/mini';
import { useEnglishErrors } from '../zod-locale.js';

useEnglishErrors();

const Id = z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(256, 'at most 256 characters'));

/** `sha256:` + 64 hex digits; normalized to lowercase. */
export const KeyHashSchema = z.pipe(
  z.string().check(z.regex(/^sha256:[0-9a-fA-F]{64}$/, 'write key hashes as "sha256:" + 64 hex digits')),
  z.transform((s: string) => s.toLowerCase()),
);

const doc = (text: string) => z.describe(text);

export const VirtualKeyEntrySchema = z.strictObject({
  hash: KeyHashSchema.check(doc('"sha256:" + the hex SHA-256 of the key, as `tollgate key create` prints it; the key itself is never stored.')),
  principal: z.strictObject({
    user: Id.check(doc('The user id budgets, rate limits and records use.')),
    tier: z.optional(Id).check(doc('Population key `tiers`.')),
    team: z.optional(Id).check(doc('Team: population key `teams`, the pool of `per: team` budgets and limits.')),
    bu: z.optional(Id).check(doc('Business unit: population key `bus`, business_units in the policy.')),
    leaders: z.optional(z.array(Id)).check(doc('Reporting chain, nearest first: population key `leaders`, access leader rules.')),
    application: z.optional(Id).check(doc('The application the user acts through (population key `applications`).')),
    platform: z.optional(Id).check(doc('Recorded as principal.platform.')),
    workflow: z.optional(Id).check(doc('Recorded as principal.workflow.')),
  }),
});

export const ApplicationEntrySchema = z.strictObject({
  id: Id.check(doc('The application id (a principal of kind application).')),
  hash: KeyHashSchema,
  bu: z.optional(Id),
  tier: z.optional(Id),
  team: z.optional(Id).check(doc('The team the application belongs to (population key `teams`, `per: team` pools).')),
});

/** Asymmetric JWS algorithms only: never `none`, never HS* (no HS/RS confusion). */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
export const DEFAULT_JWT_ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA', 'PS256'];

const Claim = z.string().check(z.minLength(1), z.maxLength(128));

/** A public verification key: RSA, EC or OKP, no private or symmetric material. */
const KTYS: ReadonlySet<unknown> = new Set(['RSA', 'EC', 'OKP']);
const PublicJwk = z.looseObject({ kty: z.optional(z.string()) }).check(
  z.refine((k) => KTYS.has(k.kty), 'a JWKS holds public RSA, EC or OKP keys only'),
  z.refine((k) => !('d' in k) && !('k' in k) && !('p' in k), 'a JWKS must hold public keys only (remove "d")'),
);

const JwksUrl = z.url().check(
  z.refine((s: string) => {
    // The URL check above reports a malformed value; this one only judges the scheme.
    if (!URL.canParse(s)) return true;
    const u = new URL(s);
    const loopback = u.hostname === 'localhost' || u.hostname === '127.0.0.1' || u.hostname === '[::1]';
    return u.protocol === 'https:' || (u.protocol === 'http:' && loopback);
  }, 'jwks_url must use https (http only for localhost)'),
);

export const JwtEntrySchema = z
  .strictObject({
    issuer: Id.check(doc('The exact `iss` the tokens carry.')),
    audience: z.union([Id, z.array(Id).check(z.minLength(1))]).check(doc('Accepted `aud` value(s).')),
    jwks_url: z.optional(JwksUrl).check(doc('Where the public keys are fetched (https; http only for localhost). Give this or `jwks`.')),
    jwks: z
      .optional(z.strictObject({ keys: z.array(PublicJwk).check(z.minLength(1, 'an inline JWKS needs at least one key')) }))
      .check(doc('The public keys inline. Give this or `jwks_url`.')),
    algorithms: z.optional(z.array(z.enum(JWT_ALGORITHMS, 'an asymmetric algorithm (RS*, PS*, ES*, EdDSA); none and HS* are refused')).check(z.minLength(1))),
    claims: z
      .optional(
        z.strictObject({
          user: z.optional(Claim),
          tier: z.optional(Claim),
          team: z.optional(Claim),
          bu: z.optional(Claim),
          leaders: z.optional(Claim),
          application: z.optional(Claim),
          platform: z.optional(Claim),
          workflow: z.optional(Claim),
        }),
      )
      .check(
        doc(
          'Principal field → claim name (dotted paths allowed): user (default sub), tier, team, bu, leaders, application, platform, workflow; the others are read only when named.',
        ),
      ),
    clock_tolerance_s: z.optional(z.number().check(z.int(), z.gte(0), z.lte(300))).check(doc('Leeway for exp/nbf in seconds (default 0).')),
    /** Marks a platform-minted token: the user is the subject, the platform an attribution. */
    platform: z.optional(Id),
    /** Claim holding the platform's tags (an object of string values). Default `tags`. */
    tags_claim: z.optional(Claim),
    /** Tag names a platform may attach; anything else is dropped. */
    allowed_tags: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(64))),
  })
  .check(
    z.superRefine((e, ctx) => {
      if ((e.jwks_url === undefined) === (e.jwks === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'give exactly one of jwks_url or jwks' });
      }
      if (e.platform === undefined && (e.allowed_tags !== undefined || e.tags_claim !== undefined)) {
        ctx.addIssue({ code: 'custom', path: ['allowed_tags'], message: 'tags are only read from platform tokens (set platform)' });
      }
      if (e.platform !== undefined && e.claims?.platform !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['claims', 'platform'], message: 'a platform token is attributed to its platform; remove claims.platform' });
      }
    }),
  );

export const IdentityConfigSchema = z
  .strictObject({
    virtual_keys: z.optional(z.array(VirtualKeyEntrySchema)).check(doc('tg_ keys for people, by hash, each with its principal.')),
    jwt: z.optional(z.array(JwtEntrySchema)).check(doc("Identity-provider tokens, verified against each issuer's JWKS.")),
    applications: z.optional(z.array(ApplicationEntrySchema)).check(doc('tg_ keys for applications (principals of kind application).')),
  })
  .check(
    z.superRefine((c, ctx) => {
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
    }),
  );

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
