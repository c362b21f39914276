/**
 * `npm run bench [-- NAME [args…]]`: runs the benchmarks, which print their figures and ratios.
 * Benchmarks are never run by `npm test`; tests do not assert timings.
 */
import { benchCliStartup } from './cli-startup.ts';
import { benchClusterShards } from './cluster-shards.ts';
import { benchDeployPipeline } from './deploy-pipeline.ts';
import { benchFleetScale } from './fleet-scale.ts';
import { benchFleetThroughput } from './fleet-throughput.ts';
import { benchKubeSim } from './kube-sim.ts';
import { benchReleaseEngine } from './release-engine.ts';
import { benchRunKeystroke } from './run-keystroke.ts';

const BENCHES: Record<string, (argv: string[]) => Promise<void>> = {
  'cli-startup': benchCliStartup,
  cluster: benchClusterShards,
  deploy: benchDeployPipeline,
  fleet: benchFleetThroughput,
  'kube-sim': benchKubeSim,
  releases: benchReleaseEngine,
  'run-keystroke': benchRunKeystroke,
  scale: benchFleetScale,
};

const [name, ...rest] = process.argv.slice(2);
const selected = name ? [name] : Object.keys(BENCHES);
for (const bench of selected) {
  const fn = BENCHES[bench];
  if (!fn) {
    console.error(`unknown benchmark "${bench}" (known: ${Object.keys(BENCHES).join(', ')})`);
    process.exit(2);
  }
  await fn(name ? rest : []);
}
process.exit(0);
