export interface ConfigIssue {
  path: string;
  message: string;
}

/** The gateway refuses to start: every violation of the registry, policy or identity config. */
export class GatewayConfigError extends Error {
  constructor(
    readonly source: 'registry' | 'policy' | 'identity' | 'options',
    readonly errors: ConfigIssue[],
  ) {
    super(`Invalid ${source}:\n${errors.map((e) => `  ${e.path || '(root)'}: ${e.message}`).join('\n')}`);
    this.name = 'GatewayConfigError';
  }
}
