import { describe, expect, it } from 'vitest';
import {
  appChart,
  CRONJOB_NAME_MAX,
  DNS_LABEL_MAX,
  domainSlug,
  fitName,
  ingressName,
  LABEL_VALUE_MAX,
  processObjectName,
  type RenderedObject,
} from '../../../charts/index.ts';
import { LONG_APP, LONG_PROCESS, longNamesApp } from './long-names.ts';

// Written out here rather than imported from rules/: the test holds names to the API server's rule
// (IsValidLabelValue), independently of the code under test.
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Every labels map in an object, pod templates and job templates included. */
function labelMaps(value: unknown, out: Record<string, string>[] = []): Record<string, string>[] {
  if (Array.isArray(value)) for (const item of value) labelMaps(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (
        (key === 'labels' || key === 'matchLabels' || key === 'selector') &&
        child &&
        typeof child === 'object'
      ) {
        if (Object.values(child).every((v) => typeof v === 'string'))
          out.push(child as Record<string, string>);
      }
      labelMaps(child, out);
    }
  }
  return out;
}

describe('fitName', () => {
  it('keeps names within the limit unchanged', () => {
    expect(fitName('shop-web', 63)).toBe('shop-web');
    expect(fitName('x'.repeat(63), 63)).toBe('x'.repeat(63));
  });

  it('shortens longer names to prefix-hash, deterministically', () => {
    const long = `${'a'.repeat(70)}`;
    const fitted = fitName(long, 63);
    expect(fitted).toHaveLength(63);
    expect(fitted).toMatch(/^a{54}-[0-9a-f]{8}$/);
    expect(fitName(long, 63)).toBe(fitted);
  });

  it('drops a trailing "-" of the prefix so the result stays a DNS label', () => {
    const name = `${'a'.repeat(53)}-${'b'.repeat(20)}`; // the cut lands right after the "-"
    const fitted = fitName(name, 63);
    expect(fitted).toMatch(/^a{53}-[0-9a-f]{8}$/);
    expect(fitted).toMatch(DNS1123_LABEL);
  });

  it('gives distinct outputs for distinct inputs', () => {
    const inputs = Array.from({ length: 2000 }, (_, i) => `${'prefix-'.repeat(12)}${i}`);
    const outputs = inputs.map((n) => fitName(n, 52));
    expect(new Set(outputs).size).toBe(inputs.length);
    for (const out of outputs) expect(out.length).toBeLessThanOrEqual(52);
  });
});

describe('domainSlug', () => {
  it('turns hostnames into label fragments', () => {
    expect(domainSlug('app.example.com')).toBe('app-example-com');
    expect(domainSlug('*.example.com')).toBe('wildcard-example-com');
  });
});

describe('names unique across apps (charts/names.ts)', () => {
  it('keeps a process type without "-" at {app}-{process}, and marks one with "-" by the app length', () => {
    expect(processObjectName('shop', 'web')).toBe('shop-web');
    expect(processObjectName('shop', 'worker')).toBe('shop-worker');
    // The pair: app cx + process y-web, app cx-y + process web.
    expect(processObjectName('cx', 'y-web')).toBe('cx-y-web-2');
    expect(processObjectName('cx-y', 'web')).toBe('cx-y-web');
    expect(processObjectName('cx-y', 'web-2')).toBe('cx-y-web-2-4');
  });

  it('never shortens a Deployment name: 30 + 1 + 20 + 3 characters fit in 63', () => {
    const name = processObjectName('a'.repeat(30), `b-${'c'.repeat(18)}`);
    expect(name).toBe(`${'a'.repeat(30)}-b-${'c'.repeat(18)}-30`);
    expect(name.length).toBeLessThanOrEqual(DNS_LABEL_MAX);
  });

  it('gives every Ingress a hash of app and domain, so slugs that meet keep distinct names', () => {
    // The pair: app ca + b-web-x.com, app ca-web-b + x.com (both were ca-web-b-web-x-com).
    const a = ingressName('ca', 'b-web-x.com');
    const b = ingressName('ca-web-b', 'x.com');
    expect(a).toMatch(/^ca-web-b-web-x-com-[0-9a-f]{8}$/);
    expect(b).toMatch(/^ca-web-b-web-x-com-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(ingressName('ca', 'b-web-x.com')).toBe(a);
  });
});

describe('names at the limits', () => {
  const objects = appChart.render(longNamesApp);
  const byKind = (kind: string): RenderedObject[] => objects.filter((o) => o.kind === kind);

  it('renders what was asked for', () => {
    expect(byKind('Deployment')).toHaveLength(3);
    expect(byKind('Ingress')).toHaveLength(3);
    expect(byKind('CronJob')).toHaveLength(2);
    // A process type with a "-" gets the app name's length as a marker (charts/names.ts).
    expect(byKind('Deployment').map((d) => d.metadata.name)).toContain(`${LONG_APP}-${LONG_PROCESS}-30`);
  });

  it('keeps Deployment, Service and Ingress names DNS labels of at most 63', () => {
    for (const o of [...byKind('Deployment'), ...byKind('Service'), ...byKind('Ingress')]) {
      expect(o.metadata.name.length).toBeLessThanOrEqual(DNS_LABEL_MAX);
      expect(o.metadata.name).toMatch(o.kind === 'Service' ? DNS1035_LABEL : DNS1123_LABEL);
    }
  });

  it('keeps Ingress names and TLS Secret names distinct for domains that differ only at the end', () => {
    const ingresses = byKind('Ingress') as (RenderedObject & {
      spec: { tls: { secretName: string }[] };
    })[];
    const names = ingresses.map((i) => i.metadata.name);
    const secrets = ingresses.map((i) => i.spec.tls[0]!.secretName);
    expect(new Set(names).size).toBe(3);
    expect(new Set(secrets).size).toBe(3);
    for (const secret of secrets) {
      expect(secret.length).toBeLessThanOrEqual(DNS_LABEL_MAX);
      expect(secret).toMatch(DNS1123_LABEL);
    }
  });

  it('keeps CronJob names at most 52', () => {
    for (const o of byKind('CronJob')) {
      expect(o.metadata.name.length).toBeLessThanOrEqual(CRONJOB_NAME_MAX);
      expect(o.metadata.name).toMatch(DNS1123_LABEL);
    }
  });

  it('keeps every label value at most 63 and label-safe', () => {
    const maps = objects.flatMap((o) => labelMaps(o));
    expect(maps.length).toBeGreaterThan(10);
    for (const map of maps) {
      for (const value of Object.values(map)) {
        expect(value.length).toBeLessThanOrEqual(LABEL_VALUE_MAX);
        expect(value).toMatch(LABEL_VALUE);
      }
    }
  });
});
