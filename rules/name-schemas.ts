/**
 * zod schemas of the Kubernetes name formats in names.ts, for payload and chart schemas: one
 * message for a missing name and one for a malformed one.
 */
import { z } from 'zod';
import {
  DNS1035_LABEL,
  DNS1035_LABEL_MAX,
  DNS1035_LABEL_MESSAGE,
  DNS1123_LABEL,
  DNS1123_LABEL_MAX,
  DNS1123_LABEL_MESSAGE,
  DNS1123_SUBDOMAIN,
  DNS1123_SUBDOMAIN_MAX,
  DNS1123_SUBDOMAIN_MESSAGE,
} from './names.ts';

interface NameOptions {
  /** Longest accepted name (the format's own maximum, or a shorter one longshore needs). */
  max?: number;
  /**
   * Message for a missing or empty name, e.g. `is required (a namespace)`. Without it an empty
   * name is told the format's message, since "" does not match the pattern either.
   */
  required?: string;
}

function nameSchema(pattern: RegExp, message: string, max: number, required: string | undefined) {
  const base = required !== undefined ? z.string({ error: required }).min(1, required) : z.string();
  return base.max(max, `must be at most ${max} characters`).regex(pattern, message);
}

export const dns1123Label = ({ max = DNS1123_LABEL_MAX, required }: NameOptions = {}) =>
  nameSchema(DNS1123_LABEL, DNS1123_LABEL_MESSAGE, max, required);

export const dns1123Subdomain = ({ max = DNS1123_SUBDOMAIN_MAX, required }: NameOptions = {}) =>
  nameSchema(DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MESSAGE, max, required);

export const dns1035Label = ({
  max = DNS1035_LABEL_MAX,
  required,
  message = DNS1035_LABEL_MESSAGE,
}: NameOptions & { message?: string } = {}) => nameSchema(DNS1035_LABEL, message, max, required);
