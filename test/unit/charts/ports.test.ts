import { describe, expect, it } from 'vitest';
import {
  type AppChartValues,
  appChart,
  parsePortMap,
  primaryPortMap,
  type RenderedObject,
} from '../../../charts/index.ts';
import { minimalApp } from './cases.ts';

function primaryOf(texts: string[]): string | undefined {
  const map = primaryPortMap(texts.map((t) => parsePortMap(t)!));
  return map && `${map.scheme}:${map.host}:${map.container}`;
}

/** The Ingress backend port and the web container's PORT for these maps. */
function routing(ports: string[]): { backend: number | undefined; port: string } {
  const values: AppChartValues = { ...minimalApp, ports, domains: ['app.example.com'] };
  const objects = appChart.render(values);
  const ingress = objects.find((o) => o.kind === 'Ingress') as
    | (RenderedObject & {
        spec: { rules: { http: { paths: { backend: { service: { port: { number: number } } } }[] } }[] };
      })
    | undefined;
  const web = objects.find((o) => o.kind === 'Deployment') as RenderedObject & {
    spec: { template: { spec: { containers: { env: { name: string; value: string }[] }[] } } };
  };
  return {
    backend: ingress?.spec.rules[0]?.http.paths[0]?.backend.service.port.number,
    port: web.spec.template.spec.containers[0]!.env.find((e) => e.name === 'PORT')!.value,
  };
}

describe('primary port', () => {
  it.each([
    [['http:80:5000', 'https:443:5000'], 'https:443:5000'],
    [['https:443:5000', 'http:80:5000'], 'https:443:5000'],
    [['http:80:5000', 'https:8443:5001'], 'http:80:5000'],
    [['http:8080:3000', 'https:9443:3002', 'https:8443:3001'], 'https:8443:3001'],
    [['http:8081:3001', 'http:8080:3000', 'tcp:22:22'], 'http:8080:3000'],
    [['http:8080:3000', 'http:8080:2000'], 'http:8080:2000'],
    [['grpc:50051:50051', 'grpcs:50052:50052'], 'grpcs:50052:50052'],
    [['grpc:50051:50051', 'tcp:80:80'], 'grpc:50051:50051'],
    [['tcp:5432:5432', 'udp:53:53'], undefined],
    [[], undefined],
  ])('%j → %s', (maps, expected) => {
    expect(primaryOf(maps)).toBe(expected);
  });

  it('is what the Ingress routes to and the container listens on', () => {
    expect(routing(['http:80:5000', 'https:443:5001'])).toEqual({ backend: 443, port: '5001' });
    expect(routing(['http:8080:3000', 'https:8443:3001'])).toEqual({ backend: 8443, port: '3001' });
    expect(routing(['http:80:8000', 'tcp:9000:9000'])).toEqual({ backend: 80, port: '8000' });
  });

  it('defaults PORT to 5000 and renders no Ingress without a routable map', () => {
    expect(routing(['tcp:9000:9000'])).toEqual({ backend: undefined, port: '5000' });
    expect(routing([])).toEqual({ backend: undefined, port: '5000' });
  });

  it('does not depend on the order maps were given in', () => {
    const maps = ['https:8443:3001', 'http:8080:3000', 'https:9443:3002', 'http:8081:3003'];
    const expected = routing(maps);
    for (let i = 0; i < maps.length; i++) {
      const rotated = [...maps.slice(i), ...maps.slice(0, i)];
      expect(routing(rotated)).toEqual(expected);
      expect(routing([...rotated].reverse())).toEqual(expected);
    }
  });
});
