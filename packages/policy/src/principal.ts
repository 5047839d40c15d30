/**
 * Who is calling. Core builds it from a virtual key, a JWT or an application credential;
 * policy only reads it.
 */
export interface Principal {
  kind: 'user' | 'application' | 'service';
  id: string;
  /**
   * Who vouches for the id: a JWT principal's issuer (`iss`). Principals of different issuers
   * (or none: virtual keys, applications) never share counters, caps or rate buckets, even
   * with equal ids; populations (`users: [alice]`) still match by id.
   */
  issuer?: string;
  tier?: string;
  /** Team: population key `teams`, and the pool of `per: team` budgets and limits. */
  team?: string;
  bu?: string;
  /** Reporting chain, nearest leader first. */
  leaders?: readonly string[];
  application?: string | null;
  platform?: string | null;
  workflow?: string | null;
  tags?: Readonly<Record<string, string>>;
}

/**
 * A population as written in a policy `match` (or a pilot cohort). Lists are OR-ed inside,
 * AND-ed across keys; an absent key does not constrain; `exempt_users` removes users.
 *
 * - `users`: matches `id` of a principal of kind `user`.
 * - `tiers`, `teams`, `bus`: match `tier` / `team` / `bu`.
 * - `leaders`: matches when a listed leader is in the principal's reporting chain, or is the
 *   principal itself (a leader belongs to their own organisation).
 * - `applications`: matches `application`, or the `id` of a principal of kind `application`.
 */
export interface PopulationSpec {
  users?: readonly string[] | undefined;
  tiers?: readonly string[] | undefined;
  teams?: readonly string[] | undefined;
  bus?: readonly string[] | undefined;
  leaders?: readonly string[] | undefined;
  applications?: readonly string[] | undefined;
  exempt_users?: readonly string[] | undefined;
}

/** A population compiled to sets; `matches` is allocation-free. */
export interface Population {
  readonly matches: (p: Principal) => boolean;
  /** True when no key constrains: everybody matches. */
  readonly everyone: boolean;
  /** A canonical text of the spec: equal populations give equal keys. */
  readonly key: string;
}

const set = (xs: readonly string[] | undefined): ReadonlySet<string> | null => (xs === undefined ? null : new Set(xs));

/** True when `p` belongs to the organisation of one of `leaders`. */
export function underLeaders(p: Principal, leaders: ReadonlySet<string>): boolean {
  if (p.kind === 'user' && leaders.has(p.id)) return true;
  const chain = p.leaders;
  if (chain === undefined) return false;
  for (let i = 0; i < chain.length; i++) if (leaders.has(chain[i] as string)) return true;
  return false;
}

export function isUser(p: Principal, users: ReadonlySet<string>): boolean {
  return p.kind === 'user' && users.has(p.id);
}

export function isApplication(p: Principal, apps: ReadonlySet<string>): boolean {
  if (p.application != null && apps.has(p.application)) return true;
  return p.kind === 'application' && apps.has(p.id);
}

export function compilePopulation(spec: PopulationSpec): Population {
  const users = set(spec.users);
  const tiers = set(spec.tiers);
  const teams = set(spec.teams);
  const bus = set(spec.bus);
  const leaders = set(spec.leaders);
  const apps = set(spec.applications);
  const exempt = set(spec.exempt_users);
  const everyone = !users && !tiers && !teams && !bus && !leaders && !apps && !exempt;
  const key = JSON.stringify(
    [spec.users, spec.tiers, spec.bus, spec.leaders, spec.applications, spec.exempt_users, spec.teams].map((xs) =>
      xs === undefined ? null : [...new Set(xs)].sort(),
    ),
  );
  const matches = (p: Principal): boolean => {
    if (exempt !== null && isUser(p, exempt)) return false;
    if (users !== null && !isUser(p, users)) return false;
    if (tiers !== null && (p.tier === undefined || !tiers.has(p.tier))) return false;
    if (teams !== null && (p.team === undefined || !teams.has(p.team))) return false;
    if (bus !== null && (p.bu === undefined || !bus.has(p.bu))) return false;
    if (leaders !== null && !underLeaders(p, leaders)) return false;
    if (apps !== null && !isApplication(p, apps)) return false;
    return true;
  };
  return { matches, everyone, key };
}
