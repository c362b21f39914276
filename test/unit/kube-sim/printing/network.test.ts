/** Networking printers (kubernetes/kubernetes pkg/printers/internalversion/printers.go). */
import { describe, expect, it } from 'vitest';
import {
  endpointSlicePrinter,
  endpointsPrinter,
  ingressClassPrinter,
  ingressPrinter,
  servicePrinter,
} from '../../../../infra/kube-sim/printing/network.ts';

const NOW = Date.parse('2026-01-01T01:00:00Z');
const metadata = { name: 'n', creationTimestamp: '2026-01-01T00:00:00Z' };

describe('networking printers', () => {
  it('service: type, cluster IP, external IP by type, ports with node ports, wide selector', () => {
    expect(servicePrinter.columns.map((c) => c.name)).toEqual([
      'Name',
      'Type',
      'Cluster-IP',
      'External-IP',
      'Port(s)',
      'Age',
      'Selector',
    ]);
    const svc = (spec: object, status: object = {}) => servicePrinter.cells({ metadata, spec, status }, NOW);
    expect(
      svc({
        type: 'ClusterIP',
        clusterIP: '10.96.0.10',
        clusterIPs: ['10.96.0.10'],
        ports: [
          { port: 53, protocol: 'UDP' },
          { port: 53, protocol: 'TCP' },
        ],
        selector: { k8s: 'dns' },
      }),
    ).toEqual(['n', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,53/TCP', '60m', 'k8s=dns']);
    expect(
      svc({
        type: 'NodePort',
        clusterIPs: ['10.0.0.1'],
        ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }],
      }).slice(3, 5),
    ).toEqual(['<none>', '80:30080/TCP']);
    expect(svc({ type: 'LoadBalancer', clusterIPs: ['10.0.0.1'], ports: [] })[3]).toBe('<pending>');
    expect(
      svc(
        { type: 'LoadBalancer', clusterIPs: ['10.0.0.1'] },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      )[3],
    ).toBe('1.2.3.4');
    expect(
      svc(
        { type: 'LoadBalancer' },
        { loadBalancer: { ingress: [{ hostname: 'a-very-long-load-balancer.example.com' }] } },
      )[3],
    ).toBe('a-very-long-l...');
    expect(svc({ type: 'ExternalName', externalName: 'db.example.com', clusterIP: '' }).slice(2, 5)).toEqual([
      '<none>',
      'db.example.com',
      '<none>',
    ]);
    expect(svc({ type: 'ClusterIP', clusterIPs: ['None'], externalIPs: ['5.6.7.8'] })[3]).toBe('5.6.7.8');
  });

  it('endpoints: ip:port, three at most', () => {
    const ep = {
      metadata,
      subsets: [
        { addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ port: 80 }, { port: 443 }] },
      ],
    };
    expect(endpointsPrinter.cells(ep, NOW)).toEqual([
      'n',
      '10.1.0.1:80,10.1.0.1:443,10.1.0.2:80 + 1 more...',
      '60m',
    ]);
    expect(endpointsPrinter.cells({ metadata }, NOW)[1]).toBe('<none>');
  });

  it('endpointslice: address type, ports, endpoints', () => {
    expect(endpointSlicePrinter.columns.map((c) => c.name)).toEqual([
      'Name',
      'AddressType',
      'Ports',
      'Endpoints',
      'Age',
    ]);
    const slice = {
      metadata,
      addressType: 'IPv4',
      ports: [{ port: 8080 }],
      endpoints: [{ addresses: ['10.1.0.1'] }, { addresses: ['10.1.0.2'] }],
    };
    expect(endpointSlicePrinter.cells(slice, NOW)).toEqual(['n', 'IPv4', '8080', '10.1.0.1,10.1.0.2', '60m']);
    expect(endpointSlicePrinter.cells({ metadata, addressType: 'IPv4' }, NOW).slice(2, 4)).toEqual([
      '<unset>',
      '<unset>',
    ]);
  });

  it('ingress: class, hosts (* for none), address, ports 80 or 80, 443', () => {
    expect(ingressPrinter.columns.map((c) => c.name)).toEqual([
      'Name',
      'Class',
      'Hosts',
      'Address',
      'Ports',
      'Age',
    ]);
    const ing = {
      metadata,
      spec: {
        ingressClassName: 'nginx',
        rules: [{ host: 'a.example' }, { host: 'b.example' }, { host: 'c.example' }, { host: 'd.example' }],
        tls: [{ hosts: ['a.example'] }],
      },
      status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    };
    expect(ingressPrinter.cells(ing, NOW)).toEqual([
      'n',
      'nginx',
      'a.example,b.example,c.example + 1 more...',
      '1.2.3.4',
      '80, 443',
      '60m',
    ]);
    expect(ingressPrinter.cells({ metadata, spec: { rules: [{}] } }, NOW).slice(1, 5)).toEqual([
      '<none>',
      '*',
      '',
      '80',
    ]);
  });

  it('ingressclass: controller and parameters', () => {
    const ic = {
      metadata,
      spec: {
        controller: 'k8s.io/ingress-nginx',
        parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'p' },
      },
    };
    expect(ingressClassPrinter.cells(ic, NOW)).toEqual([
      'n',
      'k8s.io/ingress-nginx',
      'IngressParameters.k8s.example.com/p',
      '60m',
    ]);
    expect(ingressClassPrinter.cells({ metadata, spec: { controller: 'c' } }, NOW)[2]).toBe('<none>');
  });
});
