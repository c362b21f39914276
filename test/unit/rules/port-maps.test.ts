import { describe, expect, it } from 'vitest';
import {
  formatPortMap,
  isPortNumber,
  PORT_MAP_MESSAGE,
  PORT_SCHEMES,
  parsePortMap,
  portMap,
} from '../../../rules/port-maps.ts';

describe('port maps', () => {
  it.each([
    ['http:80:5000', { scheme: 'http', host: 80, container: 5000 }],
    ['https:443:5000', { scheme: 'https', host: 443, container: 5000 }],
    ['tcp:5432:5432', { scheme: 'tcp', host: 5432, container: 5432 }],
    ['udp:53:53', { scheme: 'udp', host: 53, container: 53 }],
    ['grpc:1:65535', { scheme: 'grpc', host: 1, container: 65535 }],
    ['grpcs:65535:1', { scheme: 'grpcs', host: 65535, container: 1 }],
    ['http:080:05000', { scheme: 'http', host: 80, container: 5000 }],
  ])('parses %s', (text, map) => expect(parsePortMap(text)).toEqual(map));

  it.each([
    'http:80',
    'ftp:21:21',
    'HTTP:80:5000',
    'http:0:5000',
    'http:80:0',
    'http:65536:5000',
    'http:80:70000',
    'http:80:123456',
    'http:-1:5000',
    'http: 80:5000',
    'http:80:5000:1',
    '',
  ])('refuses %j', (text) => {
    expect(parsePortMap(text)).toBeUndefined();
    expect(portMap.safeParse(text).error?.issues.map((i) => i.message)).toEqual([PORT_MAP_MESSAGE]);
  });

  it('names every scheme and the port range in its message', () => {
    for (const scheme of PORT_SCHEMES) expect(PORT_MAP_MESSAGE).toContain(scheme);
    expect(PORT_MAP_MESSAGE).toContain('from 1 to 65535');
  });

  it.each([
    [1, true],
    [65535, true],
    [0, false],
    [65536, false],
    [80.5, false],
  ])('port number %d → %s', (port, valid) => expect(isPortNumber(port)).toBe(valid));

  it('formats what it parses', () => {
    expect(formatPortMap(parsePortMap('http:080:5000')!)).toBe('http:80:5000');
  });
});
