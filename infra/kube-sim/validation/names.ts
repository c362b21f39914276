/**
 * Format checks with upstream's exact detail strings: k8s.io/apimachinery/pkg/util/validation
 * (validation.go, 1.33: IsDNS1123Label/Subdomain, IsDNS1035Label, IsQualifiedName,
 * IsValidLabelValue, IsConfigMapKey, IsRelaxedEnvVarName, IsValidPortName, ...) and the name
 * functions of k8s.io/apimachinery/pkg/api/validation/generic.go. Each returns the list of
 * messages (empty when valid); callers wrap them into field errors.
 */

import {
  LABEL_VALUE_FORMAT as LABEL_VALUE_FMT,
  LABEL_VALUE_MAX,
  QUALIFIED_NAME_FORMAT as QUALIFIED_NAME_FMT,
  QUALIFIED_NAME_MAX,
} from '../../../rules/labels.ts';
import {
  DNS1035_LABEL_FORMAT as DNS1035_LABEL_FMT,
  DNS1035_LABEL_MAX,
  DNS1035_LABEL as DNS1035_LABEL_RE,
  DNS1123_LABEL_FORMAT as DNS1123_LABEL_FMT,
  DNS1123_LABEL_MAX,
  DNS1123_LABEL as DNS1123_LABEL_RE,
  DNS1123_SUBDOMAIN_FORMAT as DNS1123_SUBDOMAIN_FMT,
  DNS1123_SUBDOMAIN_MAX,
  DNS1123_SUBDOMAIN as DNS1123_SUBDOMAIN_RE,
} from '../../../rules/names.ts';
import { byteLength } from './access.ts';

export { DNS1035_LABEL_MAX };

export const EMPTY_ERROR = 'must be non-empty';

/** MaxLenError. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** RegexError: examples are joined as `'a',  or 'b', ` (the double space is upstream's). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

/** InclusiveRangeError. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

// The patterns and limits are rules/names.ts (shared with the charts and the job contracts);
// only the wording here is upstream's.
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

const WILDCARD_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const WILDCARD_RE = new RegExp(`^${WILDCARD_FMT}$`);

/** IsDNS1123Label. A valid subdomain that is not a label can only have dots in it. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/** IsDNS1123Subdomain. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** IsDNS1035Label. */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX) errs.push(maxLenError(DNS1035_LABEL_MAX));
  if (!DNS1035_LABEL_RE.test(value))
    errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** IsWildcardDNS1123Subdomain. */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!WILDCARD_RE.test(value)) errs.push(regexError(WILDCARD_ERR, WILDCARD_FMT, '*.example.com'));
  return errs;
}

const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);

/** IsQualifiedName: label keys, annotation keys (lowercased by the caller), finalizers. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    errs.push(
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export { LABEL_VALUE_MAX };

const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** IsValidLabelValue. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** hasChDirPrefix: keys and names that would escape the directory they are projected into. */
function chDirErrors(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const CONFIG_KEY_RE = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** IsConfigMapKey: keys of ConfigMap/Secret data and of key selectors. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!CONFIG_KEY_RE.test(value))
    errs.push(regexError(CONFIG_KEY_ERR, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  errs.push(...chDirErrors(value));
  return errs;
}

const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_VAR_NAME_ERR =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";
const ENV_VAR_NAME_RE = new RegExp(`^${ENV_VAR_NAME_FMT}$`);

/** IsEnvVarName: the strict form, used only when RelaxedEnvironmentVariableValidation is off. */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_NAME_RE.test(value)) {
    errs.push(regexError(ENV_VAR_NAME_ERR, ENV_VAR_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  }
  errs.push(...chDirErrors(value));
  return errs;
}

/**
 * IsRelaxedEnvVarName: RelaxedEnvironmentVariableValidation is beta and on by default since 1.32,
 * so 1.33 accepts any printable ASCII except '=' in env names and envFrom prefixes.
 */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push(`environment variable name ${EMPTY_ERROR}`);
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (code > 0x7e || code < 0x20 || ch === '=') {
      errs.push(
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      );
      break;
    }
  }
  return errs;
}

/** IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IsValidPortName (IANA_SVC_NAME). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (byteLength(port) > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-')))
    errs.push('must not begin or end with a hyphen');
  return errs;
}

/** IsValidPercent. */
export function isValidPercent(percent: string): string[] {
  return /^[0-9]+%$/.test(percent)
    ? []
    : [
        regexError(
          "a valid percent string must be a numeric string followed by an ending '%'",
          '[0-9]+%',
          '1%',
          '93%',
        ),
      ];
}

/** IsHTTPHeaderName. */
export function isHTTPHeaderName(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value)
    ? []
    : [
        regexError(
          "a valid HTTP header must consist of alphanumeric characters or '-'",
          '[-A-Za-z0-9]+',
          'X-Header-Name',
        ),
      ];
}

/** path.IsValidPathSegmentName: what every name must be to appear in a URL path. */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** A ValidateNameFunc: prefix is true when validating generateName. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * maskTrailingDash: a generateName may end in '-'. Upstream drops the last two characters, not
 * one (`name[:len(name)-2] + "a"`), which this keeps.
 */
function maskTrailingDash(name: string): string {
  return name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

export const nameIsDNSLabel: NameValidator = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);
