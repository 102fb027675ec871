/** The heap growth `serve` sets: +50% past live by default, 0 for V8's own, bounded otherwise. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWTH_PERCENT, HeapGrowthError, heapGrowthForServe, parseHeapGrowthPercent } from '../../services/runtime/heap-growth.js';

describe('heap growth', () => {
  it('defaults to +50% past live when unset or empty', () => {
    expect(DEFAULT_HEAP_GROWTH_PERCENT).toBe(50);
    expect(parseHeapGrowthPercent(undefined)).toBe(50);
    expect(parseHeapGrowthPercent('  ')).toBe(50);
  });

  it('takes 0 (V8 decides) and whole numbers from 10 to 300', () => {
    expect(parseHeapGrowthPercent('0')).toBe(0);
    expect(parseHeapGrowthPercent('10')).toBe(10);
    expect(parseHeapGrowthPercent(' 300 ')).toBe(300);
  });

  it.each(['9', '301', '-5', '12.5', 'fast', '1e2x'])('refuses %j with a stable code and one sentence', (raw) => {
    let caught: unknown;
    try {
      parseHeapGrowthPercent(raw);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HeapGrowthError);
    expect((caught as HeapGrowthError).code).toBe('invalid_heap_growth');
    expect((caught as Error).message).toMatch(/^ARGUS_SUPERVISOR_HEAP_GROWTH_PERCENT must be .+\.$/);
  });

  it("never overrides node's own --heap-growing-percent unless the variable asks", () => {
    expect(heapGrowthForServe({}, [])).toBe(50);
    expect(heapGrowthForServe({}, ['--heap-growing-percent=20'])).toBe(0);
    expect(heapGrowthForServe({ NODE_OPTIONS: '--max-old-space-size=512 --heap_growing_percent=30' }, [])).toBe(0);
    expect(heapGrowthForServe({ ARGUS_SUPERVISOR_HEAP_GROWTH_PERCENT: '80' }, ['--heap-growing-percent=20'])).toBe(80);
    expect(heapGrowthForServe({ NODE_OPTIONS: '--heap-growing-percentage-typo' }, [])).toBe(50);
  });
});
