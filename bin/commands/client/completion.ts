/**
 * `argus-supervisor completion bash|zsh|fish`: a completion script generated from the command
 * tree commander holds (every command, subcommand and long option, with descriptions for fish),
 * so it cannot drift from the CLI. zsh uses the bash function through `bashcompinit`.
 * Install: `source <(argus-supervisor completion bash)`, or save the fish output under
 * ~/.config/fish/completions/argus-supervisor.fish.
 * @module
 */
import type { Command } from 'commander';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Node {
  /** Space-separated command path below the program: '' for the top, 'campaigns list'. */
  path: string;
  subcommands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

/** Every command node of the tree, depth first. */
export function commandTree(program: Command): Node[] {
  const nodes: Node[] = [];
  const visit = (cmd: Command, path: string) => {
    const options = cmd.options.filter((o) => o.long).map((o) => ({ flag: o.long!, description: o.description }));
    options.push({ flag: '--help', description: 'show help' });
    const subs = cmd.commands.filter((c) => c.name() !== 'help');
    nodes.push({ path, subcommands: subs.map((c) => ({ name: c.name(), description: c.description() })), options });
    for (const sub of subs) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return nodes;
}

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashScript(program: Command): string {
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const nodes = commandTree(program);
  // The path grows only by words that are subcommands of the path so far (an option's value never moves it).
  const step = nodes
    .filter((n) => n.subcommands.length > 0)
    .map((n) => `      ${shQuote(n.path)}) case "$w" in ${n.subcommands.map((s) => shQuote(s.name)).join('|')}) path="\${path:+$path }$w";; esac;;`);
  const words = nodes.map((n) => `    ${shQuote(n.path)}) words=${shQuote([...n.subcommands.map((s) => s.name), ...n.options.map((o) => o.flag)].join(' '))};;`);
  return [
    `# ${name} completion for bash (generated from the command tree: ${name} completion bash)`,
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" path="" w words=""',
    '  for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do',
    '    case "$path" in',
    ...step,
    '    esac',
    '  done',
    '  case "$path" in',
    ...words,
    '  esac',
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    '}',
    `complete -F ${fn} ${name}`,
    '',
  ].join('\n');
}

export function zshScript(program: Command): string {
  return [`#compdef ${program.name()}`, '# zsh runs the bash completion through bashcompinit.', 'autoload -U +X bashcompinit && bashcompinit', bashScript(program)].join('\n');
}

export function fishScript(program: Command): string {
  const name = program.name();
  const out = [`# ${name} completion for fish (generated from the command tree: ${name} completion fish)`];
  for (const node of commandTree(program)) {
    const parts = node.path === '' ? [] : node.path.split(' ');
    // Right after exactly this path: seen every word of it, and none of its subcommands yet.
    const seen = parts.map((p) => `__fish_seen_subcommand_from ${p}`);
    const condition = parts.length === 0 ? '__fish_use_subcommand' : [...seen, ...(node.subcommands.length ? [`not __fish_seen_subcommand_from ${node.subcommands.map((s) => s.name).join(' ')}`] : [])].join('; and ');
    for (const sub of node.subcommands) out.push(`complete -c ${name} -f -n ${shQuote(condition)} -a ${shQuote(sub.name)} -d ${shQuote(sub.description.slice(0, 80))}`);
    for (const opt of node.options) out.push(`complete -c ${name} -n ${shQuote(condition)} -l ${opt.flag.slice(2)} -d ${shQuote(opt.description.slice(0, 80))}`);
  }
  return `${out.join('\n')}\n`;
}

export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .description('Print a shell completion script, generated from the command tree: bash, zsh or fish.')
    .argument('<shell>', SHELLS.join(' | '))
    .action((shell: string) => {
      const script = shell === 'bash' ? bashScript(program) : shell === 'zsh' ? zshScript(program) : shell === 'fish' ? fishScript(program) : null;
      if (script === null) {
        process.stderr.write(`usage: the shell must be one of ${SHELLS.join(', ')}\n`);
        process.exit(2);
      }
      process.stdout.write(script);
    });
}
