/**
 * The compact `metadata[CONTROL_EXTENSION_URI]` every task carries when the control
 * extension is on: one GetTask answers state, stage, attempt, revision and lease together.
 * @module
 */
import { CONTROL_EXTENSION_URI, type ControlTaskMetadata } from '../../adapters/a2a/control-contract.js';
import { progressOf } from '../world/progress.js';
import type { SimTask } from '../world/sim-task.js';
import type { World } from '../world/world.js';

export function controlMetadata(world: World, task: SimTask): ControlTaskMetadata {
  return {
    revision: world.revisionOf(task),
    stage: task.stage,
    attempt: task.attempt,
    attemptId: `att-${task.attempt}`,
    lease: world.leases.view(task.contextId),
    missionComplete: task.script.missionComplete && task.state === 'completed',
    progress: progressOf(task),
  };
}

/** Task metadata object: the extension's entry when control is on, else nothing. */
export function taskMetadata(world: World, task: SimTask, control: boolean): Record<string, unknown> {
  return control ? { [CONTROL_EXTENSION_URI]: controlMetadata(world, task) } : {};
}
