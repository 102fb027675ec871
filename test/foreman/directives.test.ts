import { describe, expect, it } from 'vitest';
import { DIRECTIVE_ROUTES, FOREMAN_DIRECTIVES, isForemanDirective, routeForDirective, routeWakesArgus, type ForemanRoute } from '../../machines/foreman.directives.js';
import { FOREMAN_ACTIONS } from '../../adapters/foreman/index.js';

describe('Foreman directive routes (issue 9 mapping, exactly)', () => {
  it('maps every directive as the issue says', () => {
    expect(DIRECTIVE_ROUTES).toEqual({
      CONTINUE: 'none',
      START_VERIFIER: 'argus-review',
      STEER_WORKER: 'argus-planning',
      START_WORKER: 'argus-planning',
      STOP_WORKER: 'argus-decision',
      RETRY_WORKER: 'argus-planning',
      FINISH: 'candidate-completion',
      ESCALATE: 'argus-review-or-needs-you',
    });
    for (const d of FOREMAN_DIRECTIVES) expect(routeForDirective(d)).toBe(DIRECTIVE_ROUTES[d]);
  });

  it('CONTINUE and FINISH wake nobody; every other route asks for Argus', () => {
    const wakes = (r: ForemanRoute) => routeWakesArgus(r);
    expect(wakes('none')).toBe(false);
    expect(wakes('candidate-completion')).toBe(false);
    for (const r of ['argus-review', 'argus-planning', 'argus-decision', 'argus-review-or-needs-you'] as const) expect(wakes(r)).toBe(true);
    expect(FOREMAN_DIRECTIVES.filter((d) => !routeWakesArgus(DIRECTIVE_ROUTES[d]))).toEqual(['CONTINUE', 'FINISH']);
  });

  it('the adapter and the chart declare the same upstream action list', () => {
    expect([...FOREMAN_ACTIONS]).toEqual([...FOREMAN_DIRECTIVES]);
    expect(isForemanDirective('FINISH')).toBe(true);
    expect(isForemanDirective('finish')).toBe(false);
    expect(isForemanDirective(undefined)).toBe(false);
  });
});
