/** `serve`: the HTTP API (docs/http-api.md); `api-token:create`: a bearer token and its configuration entry. */
import type { Command } from 'commander';
import { InvalidInputError } from '../../../core/errors.ts';
import { EXIT } from '../exit-codes.ts';
import { action } from '../runtime.ts';

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65_535) {
    throw new InvalidInputError([
      { path: '--port', message: `must be a port number from 1 to 65535; got "${value}"` },
    ]);
  }
  return Number(value);
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve the HTTP API (bearer tokens from LONGSHORE_API_TOKENS)')
    .option('--port <port>', 'TCP port', '8080')
    .option('--host <host>', 'address to listen on (0.0.0.0 for every interface)', '127.0.0.1')
    .action(
      action(async (options: { port: string; host: string }) => {
        const { runServe } = await import('../../http/serve.ts');
        await runServe({ host: options.host, port: port(options.port) });
        return undefined;
      }),
    );

  program
    .command('api-token:create')
    .description('Print a new API token and the LONGSHORE_API_TOKENS entry that admits it')
    .argument('<name>', 'who or what uses it (shown in job sources: http:NAME)')
    .option('--scope <scope>', 'read (GET routes) or write (everything)', 'read')
    .action(
      action(async (name: string, options: { scope: string }) => {
        if (options.scope !== 'read' && options.scope !== 'write') {
          throw new InvalidInputError([
            { path: '--scope', message: `must be read or write; got "${options.scope}"` },
          ]);
        }
        const { newToken } = await import('../../http/tokens.ts');
        const { token, entry } = newToken(name, options.scope);
        process.stdout.write(`token (shown once; give it to the client): ${token}\n`);
        process.stdout.write(
          `LONGSHORE_API_TOKENS entry (add it, comma-separated, on the server): ${entry}\n`,
        );
        return EXIT.ok;
      }),
    );
}
