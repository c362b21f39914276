import { describe, expect, it } from 'vitest';
import { ShellWordsError, splitShellWords } from '../../../charts/index.ts';

describe('splitShellWords', () => {
  it.each([
    ['bundle exec puma -C config/puma.rb', ['bundle', 'exec', 'puma', '-C', 'config/puma.rb']],
    ['  spaced\tout \n words  ', ['spaced', 'out', 'words']],
    [`echo 'single $HOME "kept"'`, ['echo', 'single $HOME "kept"']],
    [`echo "double \\"escaped\\" \\$x \\n"`, ['echo', 'double "escaped" $x \\n']],
    [`echo a\\ b c\\'d`, ['echo', 'a b', "c'd"]],
    [`echo ''  ""`, ['echo', '', '']],
    [`run --opt="a b"'c d'e`, ['run', '--opt=a bc de']],
    ['sh -c "sleep 1 && echo $PORT"', ['sh', '-c', 'sleep 1 && echo $PORT']],
    ['one \\\n two', ['one', 'two']],
    ['', []],
  ])('%j', (command, words) => {
    expect(splitShellWords(command)).toEqual(words);
  });

  it.each([
    [`echo 'open`, /unbalanced single quote \(opened at character 6\)/],
    [`echo "open`, /unbalanced double quote \(opened at character 6\)/],
    [`echo "a\\"`, /unbalanced double quote/],
    ['echo trailing\\', /backslash/],
  ])('refuses %j', (command, message) => {
    expect(() => splitShellWords(command)).toThrow(ShellWordsError);
    expect(() => splitShellWords(command)).toThrow(message);
  });
});
