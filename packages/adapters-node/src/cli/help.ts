/** The `tollgate` command line's help texts and version. */
import { createRequire } from 'node:module';

/** The version of @tollgate/adapters-node (the package that ships the `tollgate` bin). */
export function cliVersion(): string {
  try {
    const pkg = createRequire(import.meta.url)('@tollgate/adapters-node/package.json') as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const EXIT_CODES = `Exit codes:
  0  success
  1  invalid configuration, or the service could not start
  2  usage error: unknown command or option, missing or conflicting arguments`;

export const USAGE = `tollgate: one gateway for LLM traffic — who may call which model, what it may cost,
how each call is translated, metered and recorded.

Usage: tollgate <command> [options]

Commands:
  serve        Run the gateway as an HTTP service
  validate     Check a service config, or a registry and/or a policy file
  key create   Make a virtual key (tg_…) and print its config entry
  report       Spend, requests and tokens from usage records, grouped
  what-if      Replay recorded requests through a candidate policy; list what it decides otherwise
  explain      The decision of one recorded request: rules, windows, counters, thresholds
  help [CMD]   Show the help of a command

Options:
  -h, --help     Show this help
  -v, --version  Print the version

${EXIT_CODES}

Run \`tollgate <command> --help\` for a command's options.
`;

export const SERVE_HELP = `Usage: tollgate serve [--config FILE] [--host HOST] [--port PORT] [--workers N]

Run the gateway as an HTTP service, configured by a service config (YAML or JSON) that names
the registry, the policy, the identities, the store and the usage sink.

Options:
  -c, --config FILE  The service config (default: ./tollgate.yaml)
  --host HOST        Listen on this address instead of the config's listen.host
                     (0.0.0.0 in a container)
  --port PORT        Listen on this port instead of the config's listen.port (0: any free one)
  -w, --workers N    Run N worker processes (1 to 256, default 1) that share the listener and
                     one store (Redis, or the memory store held by this process); stdout goes
                     through this process; SIGTERM drains every worker
  -h, --help         Show this help

Endpoints besides the API paths of the registry:
  GET /healthz  200 while the process runs (liveness)
  GET /readyz   200 when the store and the usage sink can be reached; otherwise, and while
                draining, 503 with a JSON body saying why

Signals:
  SIGTERM, SIGINT  Stop accepting, let open requests finish (drain_timeout_s), flush usage,
                   exit 0; a second signal exits at once with 1
  SIGHUP           Read the config, registry and policy again and swap in the registry, the
                   policy and the identity section; an invalid edit changes nothing

Exit codes:
  0  stopped after SIGTERM or SIGINT
  1  invalid config, registry or policy (every violation is listed), or cannot listen
  2  usage error
`;

export const VALIDATE_HELP = `Usage: tollgate validate [--config FILE]
       tollgate validate --registry FILE [--policy FILE]
       tollgate validate --policy FILE

Check files without starting anything; every violation is listed with its file and path.

Options:
  -c, --config FILE    A service config and every file it names (default: ./tollgate.yaml)
  -r, --registry FILE  A registry file alone
  -p, --policy FILE    A policy file; with --registry its scopes and models are checked
                       against that registry, alone they are not
  -h, --help           Show this help

--config cannot be combined with --registry or --policy.

Exit codes:
  0  valid
  1  at least one violation
  2  usage error
`;

export const KEY_HELP = `Usage: tollgate key create --user NAME [--tier TIER] [--bu BU] [--leaders a,b] [--json]

Make a new virtual key (tg_ and 43 random characters). The key is printed once; tollgate keeps
only its sha256: hash, which goes under identity.virtual_keys in the service config.

Options:
  --user NAME     The user the key authenticates as (required)
  --tier TIER     The principal's tier (policy population key tiers)
  --bu BU         The principal's business unit (population key bus)
  --leaders a,b   The reporting chain, nearest first (population key leaders)
  --json          Print { key, hash, principal } as JSON
  -h, --help      Show this help

Exit codes:
  0  key printed
  2  usage error
`;

const SOURCE = `  --usage SRC     Where the usage records are: file:PATH (JSON lines, as the file: and
                  stdout sinks write them) or a postgres:// URL (required)
  --table NAME    The Postgres table (default tollgate_usage)
  --since ISO     Only records at or after this date or time
  --until ISO     Only records before this date or time`;

export const REPORT_HELP = `Usage: tollgate report --usage SRC [--by KEYS] [--since ISO] [--until ISO] [--format table|csv|json]

Spend, requests and tokens from usage records, grouped, with a total.

Options:
${SOURCE}
  --by KEYS       Group by a comma-separated list of: user, model, bu, team, tier,
                  application, deployment, provider, status, day, month
  --format F      table (default), csv or json
  -h, --help      Show this help

Exit codes: 0 done, 1 the records could not be read, 2 usage error.
`;

export const WHAT_IF_HELP = `Usage: tollgate what-if --policy FILE --registry FILE --usage SRC [--since ISO] [--until ISO] [--format table|csv|json]

Replay recorded requests, in time order, through a candidate policy and list every request it
decides otherwise than the policy that was enforced, with the spend difference. With --since,
the records from the start of the candidate's longest window containing it are replayed first
to rebuild its counters (not reported).

Options:
  --policy FILE   The candidate policy (required)
  --registry FILE The registry: prices, tags and the models the policy names (required)
${SOURCE}
  --format F      table (default), csv or json
  -h, --help      Show this help

Exit codes: 0 done, 1 invalid files or unreadable records, 2 usage error.
`;

export const EXPLAIN_HELP = `Usage: tollgate explain --usage SRC [--policy FILE] [--registry FILE] [--format text|json] REQUEST_ID

The decision of one recorded request: the rules that applied, their windows, the counters they
read, their thresholds, and the one that refused. With --policy (the revision the record names),
the rule's text is shown too.

Options:
${SOURCE}
  --policy FILE   The policy the request was decided with
  --registry FILE The registry, to explain an access denial
  --format F      text (default) or json
  -h, --help      Show this help

Exit codes: 0 found, 1 not found or unreadable, 2 usage error.
`;

export const HELP: Record<string, string> = {
  serve: SERVE_HELP,
  validate: VALIDATE_HELP,
  key: KEY_HELP,
  report: REPORT_HELP,
  'what-if': WHAT_IF_HELP,
  explain: EXPLAIN_HELP,
};
