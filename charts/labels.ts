/**
 * Standard labels (app.kubernetes.io/*). Selectors use only `instance` and `part-of`, which never
 * change for a process, because a Deployment's selector is immutable.
 */
import { processObjectName } from './names.ts';
import { mergeUnder } from './records.ts';

export const MANAGED_BY = 'longshore';

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_PART_OF = 'app.kubernetes.io/part-of';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';

/** Labels of every object of an app: part-of and managed-by, over the user's labels. */
export function appLabels(app: string, user: Record<string, string> = {}): Record<string, string> {
  return mergeUnder({ [LABEL_PART_OF]: app, [LABEL_MANAGED_BY]: MANAGED_BY }, user);
}

/**
 * The `instance` label of a process: its Deployment's name (charts/names.ts), unique in the
 * namespace. Selectors also hold `part-of`, so pods of two apps never match one selector.
 */
export function processInstance(app: string, process: string): string {
  return processObjectName(app, process);
}

/** Selector of a process's pods (Deployment selector, Service selector). */
export function processSelector(app: string, process: string): Record<string, string> {
  return { [LABEL_INSTANCE]: processInstance(app, process), [LABEL_PART_OF]: app };
}

/** Full labels of a process's objects and pods, over the user's labels. */
export function processLabels(
  app: string,
  process: string,
  user: Record<string, string> = {},
): Record<string, string> {
  return mergeUnder(
    {
      [LABEL_NAME]: process,
      [LABEL_INSTANCE]: processInstance(app, process),
      [LABEL_PART_OF]: app,
      [LABEL_MANAGED_BY]: MANAGED_BY,
    },
    user,
  );
}
