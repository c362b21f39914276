/** Values at every name limit: 30-character app, 20-character process types, 253-character domains. */
import type { AppChartValues } from '../../../charts/index.ts';
import { fullApp } from './cases.ts';

export const LONG_APP = 'a-very-long-application-name-x'; // 30
export const LONG_PROCESS = 'background-processor'; // 20
/** 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 characters. */
export const LONG_DOMAIN = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
/** Same length, differing only in the last character: shortened names must still differ. */
export const LONG_DOMAIN_TWIN = `${LONG_DOMAIN.slice(0, -1)}e`;
export const LONG_WILDCARD = `*.${LONG_DOMAIN.slice(2)}`;

export const longNamesApp: AppChartValues = {
  ...fullApp,
  app: LONG_APP,
  processes: {
    web: { replicas: 1 },
    [LONG_PROCESS]: { replicas: 1, command: 'run' },
    'z-another-long-name1': { replicas: 1 },
  },
  ports: ['http:80:5000', 'https:443:5000', 'grpcs:65535:65535', 'udp:65534:65534'],
  domains: [LONG_DOMAIN, LONG_DOMAIN_TWIN, LONG_WILDCARD],
  cron: [
    { ...fullApp.cron[0]!, suffix: 'abcdefghij', id: 'x'.repeat(5000) },
    { ...fullApp.cron[1]!, suffix: '0123456789' },
  ],
};
