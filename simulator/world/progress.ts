/**
 * Routine progress and the human-readable status line, derived from a task's counters.
 * This is the noise a supervisor must never treat as material.
 * @module
 */
import { BLOCKER_QUESTION } from './scenarios.js';
import type { SimTask } from './sim-task.js';

export interface Progress {
  step: number;
  totalSteps: number;
  loss: number;
  stdoutCursor: number;
}

const STDOUT_BYTES_PER_TICK = 4096;

export function progressOf(task: SimTask): Progress {
  const { totalSteps, stepsPerTick } = task.script;
  const step = Math.min(totalSteps, task.ticks * stepsPerTick);
  // Decays towards a floor, with a small periodic wobble so consecutive polls always differ.
  const loss = 0.35 + 2.2 * Math.exp(-task.ticks / 6) + 0.01 * ((task.ticks * 7) % 5);
  return { step, totalSteps, loss: Math.round(loss * 100) / 100, stdoutCursor: task.ticks * STDOUT_BYTES_PER_TICK };
}

export const EVALUATION = { accuracy: 0.912, evalLoss: 0.41 } as const;
export const MISSION = { targetAccuracy: 0.95, accuracy: 0.953 } as const;

/** The agent's status line for the task's current frame. */
export function statusText(task: SimTask): string {
  const p = progressOf(task);
  switch (task.state) {
    case 'submitted':
      return 'Queued: waiting for a GPU slot.';
    case 'working': {
      const line = `step ${p.step}/${p.totalSteps} loss ${p.loss.toFixed(2)} (${task.stage ?? 'working'})`;
      return task.note === null ? line : `${line}; last instruction applied`;
    }
    case 'input-required':
      // Asked again after it was answered (a driver moved it back): a new question, not the old one repeated.
      return task.asked > 1 ? `${BLOCKER_QUESTION} (question ${task.asked})` : BLOCKER_QUESTION;
    case 'completed':
      return task.script.missionComplete
        ? `Mission complete: target accuracy ${MISSION.targetAccuracy} reached (${MISSION.accuracy}) at step ${p.step}.`
        : `Evaluation finished at step ${p.step}: accuracy ${EVALUATION.accuracy}, eval loss ${EVALUATION.evalLoss}.`;
    case 'failed':
      return `Training failed at step ${p.step}: CUDA error: out of memory (tried to allocate 2.00 GiB).`;
    case 'canceled':
      return 'Canceled at the controller\'s request.';
  }
}

/** The final result text (evaluation artifact body; for 0.2 the last agent message). */
export function resultText(task: SimTask): string {
  const p = progressOf(task);
  const lines = [
    `evaluation of ${task.id} (attempt ${task.attempt})`,
    `steps: ${p.step}/${p.totalSteps}`,
    `accuracy: ${task.script.missionComplete ? MISSION.accuracy : EVALUATION.accuracy}`,
    `eval_loss: ${EVALUATION.evalLoss}`,
  ];
  if (task.script.missionComplete) lines.push(`mission: complete (target ${MISSION.targetAccuracy})`);
  return lines.join('\n');
}
