/**
 * metav1.Status errors with upstream's codes, reasons, messages and details
 * (k8s.io/apimachinery/pkg/api/errors, pkg/util/validation/field).
 */
import { qualifiedResource, type ResourceType } from './resources.ts';

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueNotSupported'
  | 'FieldValueNotFound'
  | 'InternalError';

/** One validation error, as field.Error: the Status cause is built from it. */
export interface FieldError {
  type: FieldErrorType;
  /** Field path as upstream prints it: `metadata.name`, `spec.template.spec.containers[0].image`. */
  field: string;
  /** The offending value; omitted for Required, Forbidden, TooLong and Internal (upstream omits it there). */
  value?: unknown;
  detail?: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueNotFound: 'Not found',
  InternalError: 'Internal error',
};

const VALUE_OMITTED: FieldErrorType[] = [
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
];

/** field.Error.ErrorBody(): `Invalid value: "Web": a lowercase RFC 1123 …`. */
export function fieldErrorBody(error: FieldError): string {
  let body = TYPE_TEXT[error.type];
  if (!VALUE_OMITTED.includes(error.type) && 'value' in error) {
    const v = error.value;
    if (v === null || v === undefined) body += ': "null"';
    else if (typeof v === 'string') body += `: ${JSON.stringify(v)}`;
    else if (typeof v === 'number' || typeof v === 'boolean') body += `: ${v}`;
    // A []string prints as Go's %#v does: `[]string{"10.96.0.10"}`.
    else if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string'))
      body += `: []string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
    else body += `: ${JSON.stringify(v)}`;
  }
  if (error.detail) body += `: ${error.detail}`;
  return body;
}

/** field.Error.Error(): `metadata.name: Required value: name or generateName is required`. */
export function fieldErrorText(error: FieldError): string {
  return error.field ? `${error.field}: ${fieldErrorBody(error)}` : fieldErrorBody(error);
}

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'StatusError';
  }

  toStatus(): StatusBody {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      // Upstream omits an empty reason (500s from Go errors carry none).
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `Deployment.apps`, or `Secret` for the core group: schema.GroupKind.String(). */
function groupKind(type: ResourceType): string {
  return type.group ? `${type.kind}.${type.group}` : type.kind;
}

function resourceDetails(type: ResourceType, name: string): StatusDetails {
  return { name, ...(type.group ? { group: type.group } : {}), kind: type.plural };
}

export const statusErrors = {
  notFound: (type: ResourceType, name: string) =>
    new StatusError(
      404,
      'NotFound',
      `${qualifiedResource(type)} "${name}" not found`,
      resourceDetails(type, name),
    ),

  alreadyExists: (type: ResourceType, name: string) =>
    new StatusError(
      409,
      'AlreadyExists',
      `${qualifiedResource(type)} "${name}" already exists`,
      resourceDetails(type, name),
    ),

  conflict: (
    type: ResourceType,
    name: string,
    detail = 'the object has been modified; please apply your changes to the latest version and try again',
  ) =>
    new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${detail}`,
      resourceDetails(type, name),
    ),

  invalid: (type: ResourceType, name: string, errors: FieldError[]) => {
    const causes = errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
    const texts = errors.map(fieldErrorText);
    const aggregate = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
    return new StatusError(422, 'Invalid', `${groupKind(type)} "${name}" is invalid: ${aggregate}`, {
      name,
      ...(type.group ? { group: type.group } : {}),
      kind: type.kind,
      causes,
    });
  },

  expired: (message: string) => new StatusError(410, 'Expired', message),

  badRequest: (message: string, causes?: StatusCause[]) =>
    new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined),

  forbidden: (message: string, details?: StatusDetails) =>
    new StatusError(403, 'Forbidden', message, details),

  methodNotAllowed: (message = 'the server does not allow this method on the requested resource') =>
    new StatusError(405, 'MethodNotAllowed', message),

  notAcceptable: (message: string) => new StatusError(406, 'NotAcceptable', message),

  unsupportedMediaType: (contentType: string, accepted: string[]) =>
    new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      contentType ? { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] } : undefined,
    ),

  requestEntityTooLarge: (limit: number) =>
    new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),

  tooManyRequests: (retryAfterSeconds: number) =>
    new StatusError(
      429,
      'TooManyRequests',
      'Too many requests, please try again later.',
      { retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    ),

  internal: (message: string) =>
    new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),

  serviceUnavailable: (message = 'the server is currently unable to handle the request') =>
    new StatusError(503, 'ServiceUnavailable', message),

  timeout: (message: string) => new StatusError(504, 'Timeout', message),
};
