/**
 * `git-hook install REPO --app APP`: a bare repository whose pushes to one branch deploy an app;
 * `git-hook receive`: what that hook runs. A push to the deploy branch reads the pushed commit's
 * Procfile and app.json, enqueues a `deploy` (image from the template, source sha, ref and
 * pusher) and streams the deploy to the pusher until it ends: git shows the hook's output as
 * `remote:` lines, and a failed deploy rejects the push. docs/git-push.md.
 */
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InfrastructureError, InvalidInputError } from '../../../core/errors.ts';
import { readCommitFile } from '../../git/commit-files.ts';
import { checkBranch, hookPath, hookScript, writeHook } from '../../git/hook-install.ts';
import { imageFor } from '../../git/image-template.ts';
import { decide, parsePushedRefs } from '../../git/pushed-refs.ts';
import { APP_JSON_MAX_BYTES } from '../../sources/app-json.ts';
import { PROCFILE_MAX_BYTES } from '../../sources/procfile.ts';
import { readStdinInput } from '../../sources/read-stdin.ts';
import { EXIT } from '../exit-codes.ts';
import { action, submit } from '../runtime.ts';
import { deployPayloadFrom, refuseTypesTheAppLacks, type SourceText } from './deploy.ts';

interface HookFlags {
  app: string;
  branch: string;
  imageTemplate: string;
}

/** Refuses a template whose image would not be a valid reference, or that names no commit. */
async function checkImageTemplate(template: string, app: string): Promise<void> {
  const { imageRef } = await import('../../../jobs/schemas/common.ts');
  const sample = imageFor(template, app, '0123456789abcdef0123456789abcdef01234567');
  const valid = imageRef.safeParse(sample);
  if (!valid.success) {
    throw new InvalidInputError([
      {
        path: '--image-template',
        message: `gives "${sample}" for a commit, which ${valid.error.issues[0]?.message ?? 'is not an image reference'}`,
      },
    ]);
  }
  if (!template.includes('{sha}') && !template.includes('{short_sha}')) {
    throw new InvalidInputError([
      {
        path: '--image-template',
        message: 'must contain {sha} or {short_sha}, so each push deploys the image built from its commit',
      },
    ]);
  }
}

async function checkApp(app: string): Promise<void> {
  const { appName } = await import('../../../jobs/schemas/common.ts');
  const valid = appName.safeParse(app);
  if (!valid.success) {
    throw new InvalidInputError([
      { path: '--app', message: valid.error.issues[0]?.message ?? 'is not an app name' },
    ]);
  }
}

/** Who pushed: the forge's name for them when it says (Gitea/Forgejo, GitLab), else the OS user. */
function pusher(): string {
  const named = process.env.GITEA_PUSHER_NAME ?? process.env.GL_USERNAME ?? process.env.LONGSHORE_PUSHER;
  if (named) return named;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

async function sourceText(
  gitDir: string,
  sha: string,
  path: string,
  maxBytes: number,
): Promise<SourceText | undefined> {
  const text = await readCommitFile(gitDir, sha, path, maxBytes);
  return text === undefined ? undefined : { text, label: `${path} at ${sha.slice(0, 7)}` };
}

/** The hook's work: one line per ref it does not deploy, the deploy's stream for the one it does. */
async function receive(flags: HookFlags): Promise<number> {
  const stdin = await readStdinInput({
    option: 'stdin',
    maxBytes: 1024 * 1024,
    pipeHint: 'git runs this for a push (longshore git-hook install); it reads the pushed refs from stdin',
  });
  const say = (line: string) => process.stdout.write(`longshore: ${line}\n`);
  let code: number = EXIT.ok;
  for (const decision of parsePushedRefs(stdin).map((ref) => decide(ref, flags.branch))) {
    if (!decision.deploy) {
      say(decision.reason);
      continue;
    }
    const gitDir = process.env.GIT_DIR ? resolve(process.env.GIT_DIR) : process.cwd();
    const sha = decision.sha;
    const sources = {
      ...(await sourceText(gitDir, sha, 'Procfile', PROCFILE_MAX_BYTES).then((s) =>
        s ? { procfile: s } : {},
      )),
      ...(await sourceText(gitDir, sha, 'app.json', APP_JSON_MAX_BYTES).then((s) =>
        s ? { appJson: s } : {},
      )),
    };
    const image = imageFor(flags.imageTemplate, flags.app, sha);
    say(`deploying ${sha.slice(0, 7)} of ${decision.ref.refname} as ${flags.app} (image ${image})`);
    const payload = await deployPayloadFrom(
      flags.app,
      { image, sha, ref: decision.ref.refname, pusher: pusher() },
      sources,
    );
    try {
      code = await submit('deploy', payload, { wait: true }, (redis) =>
        refuseTypesTheAppLacks(redis, flags.app, payload),
      );
    } catch (err) {
      // Redis unreachable: the push is kept (git has the commits), only the deploy did not start.
      if (!(err instanceof InfrastructureError)) throw err;
      say(`not deployed: ${err.message}`);
      say(
        `the push is kept; deploy it with \`longshore deploy ${flags.app} --image ${image}\` once the fleet is reachable`,
      );
    }
  }
  return code;
}

export function registerGitHook(program: Command): void {
  const hook = program.command('git-hook').description('Deploy an app on git push to a bare repository');
  hook
    .command('install')
    .description('Install the pre-receive hook that deploys pushes to the branch as the app')
    .argument('<repo>', 'bare repository (e.g. /srv/git/shop.git)')
    .requiredOption('--app <app>', 'app the pushes deploy')
    .option('--branch <branch>', 'branch whose pushes deploy', 'main')
    .requiredOption(
      '--image-template <template>',
      'image of a pushed commit, with {app}, {sha} and {short_sha} replaced (e.g. registry.example.com/{app}:{sha})',
    )
    .option('--redis-url <url>', "write this REDIS_URL into the hook (else it uses git's environment)")
    .option('--force', 'replace a pre-receive hook longshore did not write')
    .action(
      action(async (repo: string, options: HookFlags & { redisUrl?: string; force?: boolean }) => {
        await checkApp(options.app);
        await checkBranch(options.branch);
        await checkImageTemplate(options.imageTemplate, options.app);
        const path = await hookPath(repo);
        // The CLI as this call was started (bin/longshore.js, or the installed package's bin): the
        // hook runs it with the same node, whatever PATH git's environment has.
        const cli = resolve(process.argv[1] ?? 'longshore');
        writeHook(path, hookScript(options, process.execPath, cli), {
          force: Boolean(options.force),
          secret: options.redisUrl !== undefined,
        });
        process.stdout.write(`installed ${path}: pushes to ${options.branch} deploy ${options.app}\n`);
        return EXIT.ok;
      }),
    );
  hook
    .command('receive')
    .description('Run by the hook for a push: reads "oldrev newrev refname" lines on stdin')
    .requiredOption('--app <app>', 'app the pushes deploy')
    .option('--branch <branch>', 'branch whose pushes deploy', 'main')
    .requiredOption('--image-template <template>', 'image of a pushed commit')
    .action(action(async (options: HookFlags) => receive(options)));
}
