/**
 * Parameters and responses shared by the OpenAPI v3 operations (discovery-openapi.ts), named and
 * typed as upstream declares them. Descriptions are shortened from upstream's.
 */

import { type JsonObject, ref } from './discovery-schemas.ts';

function response(code: string, description: string, schema: string): JsonObject {
  return { [code]: { description, content: { 'application/json': { schema: ref(schema) } } } };
}
export const ok = (schema: string) => ({ ...response('200', 'OK', schema), ...UNAUTHORIZED });
export const created = (schema: string) => response('201', 'Created', schema);
export const accepted = (schema: string) => ({ ...ok(schema), ...response('202', 'Accepted', schema) });
export const UNAUTHORIZED: JsonObject = { '401': { description: 'Unauthorized' } };
export const TEXT: JsonObject = {
  '200': { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } },
  ...UNAUTHORIZED,
};

function query(name: string, type: string, description: string): JsonObject {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}
function pathParam(name: string, description: string): JsonObject {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}

export const PRETTY_PARAM = query('pretty', 'string', "If 'true', then the output is pretty printed.");
export const NAMESPACE_PARAM = pathParam(
  'namespace',
  'object name and auth scope, such as for teams and projects',
);
export const NAME_PARAM = (kind: string) => pathParam('name', `name of the ${kind}`);
const DRY_RUN = query(
  'dryRun',
  'string',
  'When present, indicates that modifications should not be persisted. Valid values are: - All',
);
export const WRITE_PARAMS = [
  DRY_RUN,
  query(
    'fieldManager',
    'string',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  query(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields: Ignore, Warn or Strict.',
  ),
];
export const FORCE_PARAM = query(
  'force',
  'boolean',
  'Force is going to "force" Apply requests: re-acquire conflicting fields owned by other managers.',
);
export const LIST_PARAMS = [
  query('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  query(
    'continue',
    'string',
    'The continue option should be set when retrieving more results from the server.',
  ),
  query('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields.'),
  query('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels.'),
  query('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  query(
    'resourceVersion',
    'string',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  query(
    'resourceVersionMatch',
    'string',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  query('sendInitialEvents', 'boolean', 'sendInitialEvents=true may be set together with watch=true.'),
  query('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  query(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of notifications.',
  ),
];
export const DELETE_PARAMS = [
  DRY_RUN,
  query('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  query('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  query(
    'propagationPolicy',
    'string',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
];
export const LOG_PARAMS = [
  query('container', 'string', 'The container for which to stream logs.'),
  query('follow', 'boolean', 'Follow the log stream of the pod.'),
  query(
    'limitBytes',
    'integer',
    'If set, the number of bytes to read from the server before terminating the log output.',
  ),
  query('previous', 'boolean', 'Return previous terminated container logs.'),
  query(
    'sinceSeconds',
    'integer',
    'A relative time in seconds before the current time from which to show logs.',
  ),
  query('tailLines', 'integer', 'If set, the number of lines from the end of the logs to show.'),
  query(
    'timestamps',
    'boolean',
    'If true, add an RFC3339 timestamp at the beginning of every line of log output.',
  ),
];

/** PodAttachOptions and PodExecOptions as query parameters (the connect operations of attach and exec). */
export const ATTACH_PARAMS = [
  query(
    'container',
    'string',
    'The container in which to execute the command. Defaults to only container if there is only one container in the pod.',
  ),
  query(
    'stderr',
    'boolean',
    'Stderr if true indicates that stderr is to be redirected for the attach call. Defaults to true.',
  ),
  query(
    'stdin',
    'boolean',
    'Stdin if true, redirects the standard input stream of the pod for this call. Defaults to false.',
  ),
  query(
    'stdout',
    'boolean',
    'Stdout if true indicates that stdout is to be redirected for the attach call. Defaults to true.',
  ),
  query('tty', 'boolean', 'TTY if true indicates that a tty will be allocated for the attach call.'),
];
export const EXEC_PARAMS = [
  query(
    'command',
    'string',
    'Command is the remote command to execute. argv array. Not executed within a shell.',
  ),
  ...ATTACH_PARAMS,
];
