/**
 * Field schemas shared by the charts. Charts cannot import src/ (they are self-contained), so the
 * Kubernetes rules the API server would enforce come from rules/, the folder charts, src and
 * kube-sim share: a chart refuses what the cluster would refuse, before anything is written.
 * Messages say what is accepted.
 */
import { dns1123Label, dns1123Subdomain } from '../rules/name-schemas.ts';

export { APP_NAME_MAX, appName, PROCESS_TYPE_MAX } from '../rules/app-names.ts';
export {
  ANNOTATIONS_MAX_BYTES,
  LABEL_VALUE,
  qualifiedNameProblem,
  userAnnotations,
  userLabels,
} from '../rules/labels.ts';

export const namespaceName = dns1123Label({ required: 'is required (a namespace)' });

/** Names of Secrets, PVCs and other namespaced objects (DNS-1123 subdomain). */
export const objectName = dns1123Subdomain({ required: 'must not be empty' });
