/**
 * The one error a chart throws: values a person (or the apps layer) must fix. It lists every
 * problem as `path: message` so a deploy fails once with the whole list, not one field per retry.
 */

/** One problem with one field of a chart's values (`processes.web.command`, `cron.1.suffix`). */
export interface ChartValuesIssue {
  path: string;
  message: string;
}

export class ChartValuesError extends Error {
  /** Stable code, the way src/core errors carry one, so callers map it without string matching. */
  readonly code = 'CHART_VALUES';

  constructor(
    readonly chart: string,
    readonly issues: ChartValuesIssue[],
  ) {
    super(
      `invalid values for chart ${chart}:\n${issues
        .map((issue) => `  ${issue.path || '(values)'}: ${issue.message}`)
        .join('\n')}`,
    );
    this.name = 'ChartValuesError';
  }
}
