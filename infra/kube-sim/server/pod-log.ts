// SCAFFOLD: replaced by the pod log server being written now.
import type { ServerResponse } from 'node:http';
import type { ControllerSettings } from '../controllers/settings.ts';
import type { ObjectStore } from '../store/object-store.ts';

export function servePodLog(
  _ctx: { store: ObjectStore; settings: ControllerSettings },
  _namespace: string,
  _name: string,
  _query: URLSearchParams,
  res: ServerResponse,
): void {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('');
}
