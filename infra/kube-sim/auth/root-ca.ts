/**
 * The cluster's serving certificate, which is also its CA (self-signed, SANs 127.0.0.1, ::1,
 * localhost and kubernetes.default.svc): kubectl sends credentials only over TLS (client-go's
 * clientcmd reads a user's token only for a TLS transport), so a simulator that authorizes with
 * RBAC serves HTTPS. Made once per process with the system's openssl, as kubeadm's `certs`
 * phase would make a CA; `kube-root-ca.crt` publishes it. Undefined when openssl is missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServingCert {
  key: string;
  cert: string;
}

let cached: ServingCert | null | undefined;

export function servingCert(): ServingCert | undefined {
  if (cached !== undefined) return cached ?? undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-ca-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-subj',
        '/CN=kubernetes',
        '-days',
        '3650',
        '-addext',
        'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes.default.svc',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
      ],
      { stdio: 'ignore', timeout: 10_000 },
    );
    cached = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
  } catch {
    cached = null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return cached ?? undefined;
}

/** What kube-root-ca.crt holds: the CA when there is one, else a placeholder PEM block. */
export function clusterCaPem(): string {
  return (
    servingCert()?.cert ??
    `-----BEGIN CERTIFICATE-----\n${Buffer.from('kube-sim has no CA: openssl is missing').toString('base64')}\n-----END CERTIFICATE-----\n`
  );
}
