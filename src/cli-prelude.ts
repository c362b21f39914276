/**
 * Run by bin/longshore.js before it loads the CLI (src/cli.ts): starts what can run beside module
 * loading. Keep it tiny; everything it imports delays every command.
 */
import { sealsValues } from './producers/cli/seals-values.ts';

if (sealsValues(process.argv)) (await import('./producers/cli/key-head-start.ts')).startKeyDerivation();
