/**
 * The app chart's objects, in a fixed order: ServiceAccount, Deployments by process type, the KEDA TriggerAuthentications, their autoscalers, the web
 * Service, Ingresses by domain, CronJobs by suffix. (The release engine applies them in its own
 * dependency order; this order only keeps the output byte-identical.)
 */
import type { RenderedObject } from '../types.ts';
import { autoscaler } from './autoscaler.ts';
import { appContext } from './context.ts';
import { cronJob } from './cronjob.ts';
import { deployment } from './deployment.ts';
import { ingresses } from './ingress.ts';
import { webService } from './service.ts';
import { serviceAccount } from './service-account.ts';
import { triggerAuthentications } from './trigger-auth.ts';
import type { AppChartValues } from './values.ts';

export function renderApp(values: AppChartValues): RenderedObject[] {
  const ctx = appContext(values);
  const objects: RenderedObject[] = [serviceAccount(values)];
  for (const process of Object.keys(values.processes).sort()) {
    objects.push(deployment(ctx, process, values.processes[process]!));
  }
  objects.push(...triggerAuthentications(values));
  for (const process of Object.keys(values.processes).sort()) {
    const scaling = values.processes[process]!.autoscaling;
    if (scaling) objects.push(autoscaler(ctx, process, scaling));
  }
  const service = webService(ctx);
  if (service) objects.push(service);
  objects.push(...ingresses(ctx));
  const tasks = [...values.cron].sort((a, b) => (a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0));
  for (const task of tasks) objects.push(cronJob(ctx, task));
  return objects;
}
