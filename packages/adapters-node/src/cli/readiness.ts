/**
 * Readiness of `tollgate serve`: whether the store and the usage sink it was configured with
 * can be reached. `/readyz` answers from a fresh check (bounded in time); a monitor checks
 * every few seconds and logs each change, so an operator sees an outage begin and end.
 */

/** A backend the service depends on: the Redis store or the Postgres usage sink. */
export interface Dependency {
  name: 'store' | 'usage';
  /** As shown in logs, credentials redacted: `redis redis://127.0.0.1:6379/`. */
  target: string;
  /** Resolves when the backend answers; rejects saying why otherwise. */
  ping(): Promise<void>;
  /** What happens while it cannot be reached, for the log line. */
  whileDown: string;
  /** Counters worth showing (a sink's queued, dropped and failed records). */
  detail?: () => Record<string, number>;
}

export interface DependencyStatus {
  ok: boolean;
  target: string;
  /** Why it cannot be reached. */
  error?: string;
  [detail: string]: unknown;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Partial<Record<Dependency['name'], DependencyStatus>>;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class Readiness {
  private running: Promise<ReadinessReport> | null = null;
  private readonly up = new Map<Dependency['name'], boolean>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly dependencies: readonly Dependency[],
    private readonly log: (line: string) => void,
    private readonly timeoutMs = 2500,
  ) {}

  /** Check every dependency (one check at a time: concurrent callers share it); logs changes. */
  check(): Promise<ReadinessReport> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Check every `intervalMs` in the background (the timer does not keep the process alive). */
  monitor(intervalMs: number): void {
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  private async run(): Promise<ReadinessReport> {
    const results = await Promise.all(
      this.dependencies.map(async (d) => {
        try {
          await withTimeout(d.ping(), this.timeoutMs);
          return { d, error: undefined };
        } catch (error) {
          return { d, error: message(error) };
        }
      }),
    );
    const report: ReadinessReport = { ready: true, checks: {} };
    for (const { d, error } of results) {
      const ok = error === undefined;
      const status: DependencyStatus = { ok, target: d.target, ...(ok ? {} : { error }), ...(d.detail?.() ?? {}) };
      report.checks[d.name] = status;
      if (!ok) report.ready = false;
      const was = this.up.get(d.name);
      if (was !== ok) {
        this.up.set(d.name, ok);
        const what = d.name === 'store' ? 'store' : 'usage sink';
        if (!ok) this.log(`tollgate: ${what} ${d.target} cannot be reached (${error}); ${d.whileDown}; /readyz answers 503 until it can`);
        else if (was === false) this.log(`tollgate: ${what} ${d.target} can be reached again`);
      }
    }
    return report;
  }
}
