/**
 * Which state nodes of the chart a campaign is in, by state node id (`campaign.authority.observing`,
 * …): the ids the rendered chart tags with `data-state`, so the page can mark them active. The
 * value alone is enough: `getStateNodes` resolves it against the machine, ancestors included.
 * @module
 */
import { getStateNodes, type AnyStateMachine, type StateValue } from 'xstate';
import { campaignMachine } from '../../machines/campaign.machine.js';

export function activeStateIds(value: StateValue, machine: AnyStateMachine = campaignMachine): string[] {
  // getStateNodes lists shared ancestors once per region; keep the first of each, in document order.
  return [...new Set(getStateNodes(machine.root, value).map((node) => node.id))];
}
