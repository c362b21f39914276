/**
 * src/cli.ts loads only the module of the command being run (COMMAND_MODULES): this keeps that
 * table complete and exact, so a call never misses its command nor loads a module it does not use.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, COMMAND_MODULES, modulesFor } from '../../src/cli.ts';

const argvFor = (...words: string[]) => ['node', 'longshore', ...words];

describe('the CLI loads one command module per call', () => {
  it('names, for every command a module registers, that module and no other', async () => {
    for (const entry of COMMAND_MODULES) {
      const program = new Command('longshore');
      (await entry.load())(program);
      const names = program.commands.map((c) => c.name());
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect(modulesFor(argvFor(name, '--help'))).toEqual([entry]);
    }
  });

  it('registers every command when the word is unknown (help, a typo), and the same set as one by one', async () => {
    const all = await buildProgram(argvFor('help'));
    const everyName = all.commands.map((c) => c.name());
    expect(modulesFor(argvFor('help'))).toEqual(COMMAND_MODULES);
    expect(modulesFor(argvFor('apps:lsit'))).toEqual(COMMAND_MODULES);
    expect(modulesFor(argvFor())).toEqual(COMMAND_MODULES);
    for (const name of everyName) {
      const one = await buildProgram(argvFor(name));
      expect(one.commands.map((c) => c.name())).toContain(name);
    }
  });

  it('loads no producer command module for the long-running commands', async () => {
    for (const word of ['worker', 'scheduler', 'sim', 'dev']) {
      expect(modulesFor(argvFor(word))).toEqual([]);
      const program = await buildProgram(argvFor(word));
      expect(program.commands.map((c) => c.name())).toEqual(['worker', 'scheduler', 'sim', 'dev']);
    }
  });

  it('finds the command word after the program options', () => {
    const apps = COMMAND_MODULES.find((m) => m.commands.includes('apps:list'));
    expect(modulesFor(argvFor('--no-color', 'apps:list', '--json'))).toEqual([apps]);
  });
});
