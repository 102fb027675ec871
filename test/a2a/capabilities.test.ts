import { describe, expect, it } from 'vitest';
import { agentCardSchema, CAPABILITY_NAMES, CONTROL_EXTENSION_URI, detectCapabilities, selectEndpoint, type CapabilityName } from '../../adapters/a2a/index.js';
import { CONTROL_EXTENSION_DECL, wireCard } from '../fixtures/wire.js';

const ALL_METHODS = ['lease.get', 'lease.claim', 'lease.renew', 'lease.release', 'intervene', 'request.get'];
const ALL_MUTATIONS = ['submit', 'cancel', 'intervene'];
const READS: CapabilityName[] = ['discover', 'status', 'evidence'];

function cardWith(params: Record<string, unknown> | undefined, uri = CONTROL_EXTENSION_URI) {
  const extensions = params === undefined ? [] : [{ uri, params }];
  return agentCardSchema.parse({ name: 'x', capabilities: { extensions } });
}

describe('capability detection table', () => {
  const full = { methods: ALL_METHODS, mutations: ALL_MUTATIONS, epochEnforcement: true, requestReadback: true, leaseScope: 'context' };
  const table: [name: string, params: Record<string, unknown> | undefined, enabled: CapabilityName[], mutationsEnabled: boolean, uri?: string][] = [
    ['no extension: standard A2A reads only', undefined, READS, false],
    ['full extension', full, [...CAPABILITY_NAMES], true],
    ['declared without epoch enforcement', { ...full, epochEnforcement: false }, READS, false],
    ['epochEnforcement missing', { methods: ALL_METHODS, mutations: ALL_MUTATIONS }, READS, false],
    ['epochEnforcement as a string is not true', { ...full, epochEnforcement: 'true' }, READS, false],
    ['no renew: claim alone cannot keep authority', { ...full, methods: ['lease.get', 'lease.claim', 'lease.release', 'intervene'] }, [...READS, 'claim_control', 'release_control'], false],
    ['no claim', { ...full, methods: ['lease.get', 'lease.renew', 'lease.release'] }, [...READS, 'renew_control', 'release_control'], false],
    ['no lease.get: a claim could not be verified by readback', { ...full, methods: ['lease.claim', 'lease.renew', 'lease.release', 'intervene'] }, READS, false],
    ['lease only, no fenced mutations listed', { ...full, mutations: [] }, [...READS, 'claim_control', 'renew_control', 'release_control'], true],
    ['submit only', { ...full, mutations: ['submit'] }, [...READS, 'submit', 'claim_control', 'renew_control', 'release_control'], true],
    ['intervene mutation without the intervene method', { ...full, methods: ['lease.get', 'lease.claim', 'lease.renew'] }, [...READS, 'submit', 'claim_control', 'renew_control', 'cancel'], true],
    ['another extension URI only', full, READS, false, 'urn:someone-else:v1'],
  ];

  it.each(table)('%s', (_name, params, enabled, mutationsEnabled, uri) => {
    const report = detectCapabilities(cardWith(params, uri));
    for (const name of CAPABILITY_NAMES) expect([name, report.capabilities[name]]).toEqual([name, enabled.includes(name)]);
    expect(report.mutationsEnabled).toBe(mutationsEnabled);
    expect(report.unsupported).toEqual(CAPABILITY_NAMES.filter((n) => !enabled.includes(n)));
  });

  it('reports the extension as declared even when its params are unusable', () => {
    const report = detectCapabilities(cardWith({ methods: 'all' }));
    expect(report.controlExtension).toBe(true);
    expect(report.controlParams).toBeUndefined();
    expect(report.mutationsEnabled).toBe(false);
  });

  it('exposes parsed params when they are valid', () => {
    const report = detectCapabilities(cardWith(CONTROL_EXTENSION_DECL.params));
    expect(report.controlParams).toEqual(CONTROL_EXTENSION_DECL.params);
  });
});

describe('endpoint selection from the card', () => {
  it.each([
    ['1.0 card', wireCard('1.0', 'http://h/a2a/rpc', false), '1.0', 'http://h/a2a/rpc'],
    ['0.3 card', wireCard('0.3', 'http://h/a2a', false), '0.3', 'http://h/a2a'],
    ['0.2.5 card (no protocolVersion)', wireCard('0.2.5', 'http://h/a2a', false), '0.2.5', 'http://h/a2a'],
    ['0.2.6 card', { name: 'x', protocolVersion: '0.2.6', url: 'http://h/' }, '0.2.5', 'http://h/'],
    [
      '1.x SDK with legacy compat: prefers 1.0',
      {
        supportedInterfaces: [
          { url: 'http://h/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
          { url: 'http://h/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ],
      },
      '1.0',
      'http://h/v1',
    ],
    ['1.0 over gRPC and JSON-RPC: picks JSON-RPC', { supportedInterfaces: [{ url: 'grpc://h', protocolBinding: 'GRPC', protocolVersion: '1.0' }, { url: 'http://h/j', protocolBinding: 'jsonrpc', protocolVersion: '1.0' }] }, '1.0', 'http://h/j'],
    ['0.3 preferring gRPC with a JSON-RPC alternative', { protocolVersion: '0.3.0', url: 'grpc://h', preferredTransport: 'GRPC', additionalInterfaces: [{ url: 'http://h/j', transport: 'JSONRPC' }] }, '0.3', 'http://h/j'],
    ['legacy card without url: mount root', { name: 'x' }, '0.2.5', undefined],
  ])('%s', (_name, card, version, url) => {
    expect(selectEndpoint(agentCardSchema.parse(card))).toEqual({ protocolVersion: version, advertisedUrl: url });
  });

  it.each([
    ['gRPC-only 1.0', { supportedInterfaces: [{ url: 'grpc://h', protocolBinding: 'GRPC', protocolVersion: '1.0' }] }],
    ['unknown future version', { protocolVersion: '2.0', url: 'http://h/' }],
  ])('none for %s', (_name, card) => {
    expect(selectEndpoint(agentCardSchema.parse(card))).toBeNull();
  });
});
