/**
 * What one API request asks for, parsed from its URL and query: the resource, the scope, and the
 * write options (dryRun, fieldManager, fieldValidation, force) the verbs honour.
 */
import { statusErrors } from '../errors.ts';
import type { ResourceType } from '../resources.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface ApiRequest {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  query: URLSearchParams;
  userAgent?: string;
  /** Warning headers (RFC 7234 299 warnings) to send with the response. */
  warnings: string[];
  /** Keys the JSON body repeats (reported per fieldValidation, like unknown fields). */
  duplicateFields?: string[];
  /** The JSON body's number literals JSON.parse respelled (`1e+06`), by path (strict decoding). */
  numberLiterals?: Map<string, string>;
}

export interface WriteOptions {
  dryRun: boolean;
  fieldManager?: string;
  fieldValidation: FieldValidation;
  force: boolean;
}

export function writeOptions(query: URLSearchParams): WriteOptions {
  const dryRun = query.getAll('dryRun');
  for (const value of dryRun) {
    if (value !== 'All')
      throw statusErrors.badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  }
  // Unset means Warn (the server default since 1.27); kubectl asks for Strict itself.
  const validation = query.get('fieldValidation') ?? 'Warn';
  if (!['Strict', 'Warn', 'Ignore'].includes(validation)) {
    throw statusErrors.badRequest(
      `fieldValidation: Unsupported value: "${validation}": supported values: "Ignore", "Strict", "Warn"`,
    );
  }
  const force = query.get('force');
  return {
    dryRun: dryRun.length > 0,
    ...(query.get('fieldManager') ? { fieldManager: query.get('fieldManager')! } : {}),
    fieldValidation: validation as FieldValidation,
    force: force === 'true' || force === '1',
  };
}
