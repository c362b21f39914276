/**
 * Events, as k8s.io/kubernetes pkg/apis/core/validation/events.go checks them: every request gets
 * legacyValidateEvent; requests through events.k8s.io/v1 also get the strict rules of
 * ValidateEventCreate/ValidateEventUpdate (core/v1 requests skip them "for backwards
 * compatibility"). Upstream validates the internal core Event whatever the request's version, so
 * field paths are core/v1's (message, involvedObject, count) even for an events.k8s.io/v1 body;
 * only the reporting controller is named after the request's version (`reportingComponent` for
 * core/v1, the internal `reportingController` otherwise), as legacyValidateEvent does since
 * it takes the request version.
 */
import type { FieldError } from '../errors.ts';
import { eventFromEventsV1 } from '../store/events-v1-view.ts';
import type { KubeObject } from '../types.ts';
import { byteLength, num, objOrEmpty, str } from './access.ts';
import { semanticEqual } from './equality.ts';
import { invalid, required } from './field.ts';
import { FIELD_IMMUTABLE, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from './names.ts';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

type RequestVersion = 'v1' | 'events.k8s.io/v1';

/** legacyValidateEvent: what every Event must satisfy, whichever API wrote it. */
function legacyValidateEvent(event: unknown, version: RequestVersion): FieldError[] {
  const controllerField = version === 'v1' ? 'reportingComponent' : 'reportingController';
  const e = objOrEmpty(event);
  const errs: FieldError[] = [];
  const namespace = str(objOrEmpty(e.metadata).namespace);
  const involvedNamespace = str(objOrEmpty(e.involvedObject).namespace);
  if (str(e.eventTime) === '') {
    const mismatch =
      involvedNamespace.length === 0
        ? namespace !== '' && namespace !== 'default'
        : namespace !== involvedNamespace;
    if (mismatch)
      errs.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  } else {
    if (involvedNamespace.length === 0 && namespace !== 'default' && namespace !== 'kube-system') {
      errs.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
    const controller = str(e.reportingComponent);
    if (controller.length === 0) errs.push(required(controllerField));
    errs.push(...isQualifiedName(controller).map((msg) => invalid(controllerField, controller, msg)));
    const instance = str(e.reportingInstance);
    if (instance.length === 0) errs.push(required('reportingInstance'));
    if (byteLength(instance) > REPORTING_INSTANCE_LIMIT) {
      errs.push(invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    }
    const action = str(e.action);
    if (action.length === 0) errs.push(required('action'));
    if (byteLength(action) > ACTION_LIMIT)
      errs.push(invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
    const reason = str(e.reason);
    if (reason.length === 0) errs.push(required('reason'));
    if (byteLength(reason) > REASON_LIMIT)
      errs.push(invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
    if (byteLength(str(e.message)) > NOTE_LIMIT)
      errs.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  errs.push(...isDNS1123Subdomain(namespace).map((msg) => invalid('namespace', namespace, msg)));
  return errs;
}

/** validateV1EventSeries: a series has seen at least two occurrences, the last one timed. */
function validateV1EventSeries(e: Record<string, unknown>): FieldError[] {
  if (e.series === undefined || e.series === null) return [];
  const series = objOrEmpty(e.series);
  const errs: FieldError[] = [];
  if ((num(series.count) ?? 0) < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (str(series.lastObservedTime) === '') errs.push(required('series.lastObservedTime'));
  return errs;
}

/** core/v1 create: ObjectMeta (the generic BeforeCreate check), then legacyValidateEvent. */
export function validateEvent(event: unknown): FieldError[] {
  return [
    ...validateObjectMeta(event, { namespaced: true, nameFn: nameIsDNSSubdomain }),
    ...legacyValidateEvent(event, 'v1'),
  ];
}

/**
 * ValidateEventUpdate returns only the legacy checks for core/v1 requests ("no further
 * validation for backwards compatibility"), after the metadata rules every update gets.
 */
export function validateEventUpdate(event: unknown, old: unknown): FieldError[] {
  return [...validateObjectMetaUpdate(event, old), ...legacyValidateEvent(event, 'v1')];
}

/** ValidateEventCreate for an events.k8s.io/v1 request: legacy, then the strict rules. */
export function validateEventsV1Create(view: unknown): FieldError[] {
  const event = eventFromEventsV1(view as KubeObject);
  const errs = legacyValidateEvent(event, 'events.k8s.io/v1');
  errs.push(...validateObjectMeta(event, { namespaced: true, nameFn: nameIsDNSSubdomain }));
  errs.push(...validateV1EventSeries(event));
  if (str(event.eventTime) === '') errs.push(required('eventTime'));
  const type = str(event.type);
  if (type !== 'Normal' && type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${type}`));
  if (str(event.firstTimestamp) !== '') errs.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (str(event.lastTimestamp) !== '') errs.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if ((num(event.count) ?? 0) !== 0) errs.push(invalid('count', '', 'needs to be unset'));
  const source = objOrEmpty(event.source);
  if (str(source.component) !== '' || str(source.host) !== '')
    errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

/** Go's zero value for an absent field, so that absent and empty compare equal as in Go. */
const FIELD_ZEROS: Record<string, unknown> = { count: 0, involvedObject: {}, source: {} };

/** The fields ValidateEventUpdate keeps immutable for events.k8s.io/v1 requests, in its order. */
const IMMUTABLE_FIELDS = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

function comparable(e: Record<string, unknown>, field: string): unknown {
  const value = e[field];
  if (value === undefined || value === null || value === '') return FIELD_ZEROS[field] ?? '';
  return value;
}

/** ValidateEventUpdate for an events.k8s.io/v1 request: legacy, metadata, series, immutability. */
export function validateEventsV1Update(view: unknown, oldView: unknown): FieldError[] {
  const event = eventFromEventsV1(view as KubeObject);
  const old = eventFromEventsV1(oldView as KubeObject);
  const errs = legacyValidateEvent(event, 'events.k8s.io/v1');
  errs.push(...validateObjectMetaUpdate(event, old));
  if (!semanticEqual(event.series ?? null, old.series ?? null)) errs.push(...validateV1EventSeries(event));
  for (const field of IMMUTABLE_FIELDS) {
    const now = comparable(event, field);
    if (!semanticEqual(now, comparable(old, field))) {
      // The internal field's name: upstream's path is `reportingController`.
      const path = field === 'reportingComponent' ? 'reportingController' : field;
      errs.push(invalid(path, event[field] ?? null, FIELD_IMMUTABLE));
    }
  }
  return errs;
}
