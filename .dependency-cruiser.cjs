/**
 * Layering rules from docs/decisions and the design:
 *   bin -> server -> services -> {machines, persistence, adapters}; simulator stands apart.
 * Each rule names the arrow it forbids so a failure reads like the design.
 */
const layer = (name) => `^${name}/`;

/**
 * The folders of services/ in layers, lowest first: a folder imports only from its own layer or
 * below, so no two folders import each other in both directions (issue 18 item 10). The lowest
 * layer holds the API's stable vocabulary, metrics, configuration, fault points, the reducer and
 * the chart renderer, which import no other services/ folder at all.
 */
const SERVICE_LAYERS = [['contract', 'metrics', 'config', 'faults', 'reducer', 'chart'], ['authority'], ['decisions'], ['campaign'], ['api'], ['runtime'], ['library']];
const folders = (names) => `^services/(${names.join('|')})/`;
const serviceLayerRules = [
  ...SERVICE_LAYERS.slice(0, -1).map((names, i) => ({
    name: `services-${names.join('-')}-imports-no-layer-above`,
    comment: `services/ layers, lowest first: ${SERVICE_LAYERS.map((l) => l.join('+')).join(' < ')}.`,
    severity: 'error',
    from: { path: folders(names) },
    to: { path: folders(SERVICE_LAYERS.slice(i + 1).flat()) },
  })),
  ...SERVICE_LAYERS[0].map((name) => ({
    name: `services-${name}-is-a-leaf`,
    comment: 'The lowest layer of services/ imports no other services/ folder.',
    severity: 'error',
    from: { path: `^services/${name}/` },
    to: { path: `^services/(?!${name}/)` },
  })),
];

module.exports = {
  forbidden: [
    ...serviceLayerRules,
    {
      name: 'machines-are-pure',
      comment: 'Statecharts decide; they never do I/O or reach the store, adapters or server.',
      severity: 'error',
      from: { path: layer('machines') },
      to: {
        path: ['^(adapters|persistence|services|server|bin|simulator|bench)/'],
      },
    },
    {
      name: 'machines-no-io-builtins',
      comment: 'No file system or network access from the statecharts.',
      severity: 'error',
      from: { path: layer('machines') },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|net|http|https|child_process|dgram|tls)' },
    },
    {
      name: 'adapters-are-outbound-only',
      comment: 'Outbound I/O never imports the layers above it.',
      severity: 'error',
      from: { path: layer('adapters') },
      to: { path: ['^(services|server|bin|persistence|machines|simulator|bench)/'] },
    },
    {
      name: 'foreman-cannot-reach-a2a',
      comment: 'Foreman has no mutation path: its adapter may not reach the A2A client.',
      severity: 'error',
      from: { path: '^adapters/foreman/' },
      to: { path: '^adapters/a2a/', reachable: true },
    },
    {
      name: 'argus-reaches-only-sanitize',
      comment: 'The Argus adapter reuses the remote-text boundary of the A2A adapter and nothing else of it (no mutation path).',
      severity: 'error',
      from: { path: '^adapters/argus/' },
      to: { path: '^adapters/a2a/', pathNot: '^adapters/a2a/(sanitize|remote-fields)\\.ts$' },
    },
    {
      name: 'persistence-stands-below-services',
      severity: 'error',
      from: { path: layer('persistence') },
      to: { path: ['^(services|server|bin|adapters|simulator|bench)/'] },
    },
    {
      name: 'services-below-server',
      severity: 'error',
      from: { path: layer('services') },
      to: { path: ['^(server|bin|simulator|bench)/'] },
    },
    {
      name: 'server-below-bin',
      severity: 'error',
      from: { path: layer('server') },
      to: { path: ['^(bin|simulator|bench)/'] },
    },
    {
      name: 'simulator-stands-apart',
      comment: 'The simulator shares only the published control-extension contract.',
      severity: 'error',
      from: { path: layer('simulator') },
      to: {
        path: ['^(services|server|bin|persistence|machines|bench)/', '^adapters/(?!a2a/control-contract)'],
      },
    },
    {
      name: 'library-is-a-thin-facade',
      comment:
        'The embeddable library (services/library) reaches the supervisor only through its public methods: no actor, store, statechart or remote client of its own, so a host cannot forge a fact.',
      severity: 'error',
      from: { path: '^services/library/' },
      to: {
        path: ['^(machines|persistence)/', '^adapters/(?!logger\\.ts$)', '^services/(campaign|chart|reducer|decisions)/'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'nothing-inside-uses-the-library',
      comment: 'The library facade is the top of services/: the server, the CLI and the services use the internal supervisor.',
      severity: 'error',
      from: { path: ['^(services|server|bin)/'], pathNot: '^services/library/' },
      to: { path: '^services/library/' },
    },
    {
      name: 'pg-only-in-persistence-postgres',
      comment: 'The PostgreSQL driver is used by persistence/postgres/ alone (plain SQL reviewed in one place).',
      severity: 'error',
      from: { pathNot: '^persistence/postgres/' },
      to: { path: 'node_modules/(pg|pg-pool|@types/pg)/' },
    },
    {
      name: 'file-store-never-loads-postgres',
      comment: 'The rest of persistence/ does not import persistence/postgres/, so a process on the file store never loads pg.',
      severity: 'error',
      from: { path: '^persistence/', pathNot: '^persistence/postgres/' },
      to: { path: '^persistence/postgres/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage|test)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
