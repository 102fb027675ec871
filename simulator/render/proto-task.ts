/**
 * Renders a simulated task as the SDK's in-memory (ts-proto) Task. The SDK serializes it for
 * the 1.0 wire and translates it for 0.3, so both dialects come from this one function.
 * @module
 */
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import { EVALUATION, MISSION, progressOf, resultText, statusText } from '../world/progress.js';
import type { SimState } from '../world/scenarios.js';
import type { SimTask } from '../world/sim-task.js';
import type { World } from '../world/world.js';
import { taskMetadata } from './control-metadata.js';

const STATE: Record<SimState, TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
};

export const simStateOf = (state: TaskState): SimState | undefined =>
  (Object.keys(STATE) as SimState[]).find((key) => STATE[key] === state);

const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

function message(task: SimTask, role: Role, messageId: string, text: string): Message {
  return {
    messageId,
    contextId: task.contextId,
    taskId: task.id,
    role,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function userMessage(task: SimTask): Message {
  const text = task.instruction ?? `Run the ${task.script.name} campaign (attempt ${task.attempt}).`;
  return message(task, Role.ROLE_USER, task.userMessageId ?? `${task.id}-user`, text);
}

function evaluationArtifact(task: SimTask): Artifact {
  const metrics: Record<string, unknown> = {
    step: progressOf(task).step,
    accuracy: task.script.missionComplete ? MISSION.accuracy : EVALUATION.accuracy,
    evalLoss: EVALUATION.evalLoss,
  };
  if (task.script.missionComplete) metrics['missionComplete'] = true;
  return {
    artifactId: `${task.id}-evaluation`,
    name: 'evaluation',
    description: 'Evaluation report of the finished attempt',
    parts: [textPart(resultText(task)), dataPart(metrics)],
    metadata: undefined,
    extensions: [],
  };
}

/** The checkpoints a task published (`addCheckpoint`), oldest first: artifacts with no body to read. */
function checkpointArtifacts(task: SimTask): Artifact[] {
  return Array.from({ length: task.checkpoints }, (_, i) => ({
    artifactId: `${task.id}-checkpoint-${i + 1}`,
    name: `checkpoint-${i + 1}`,
    description: 'Training checkpoint',
    parts: [dataPart({ checkpoint: i + 1 })],
    metadata: undefined,
    extensions: [],
  }));
}

export function renderProtoTask(world: World, task: SimTask, control: boolean): Task {
  const state = task.state;
  // The id changes with every revision, so clients that key on messageId see each status once.
  const status = message(task, Role.ROLE_AGENT, `${task.id}-status-${task.revision}`, statusText(task));
  const history = [userMessage(task)];
  if (state === 'completed' || state === 'failed' || state === 'input-required') history.push(status);
  return {
    id: task.id,
    contextId: task.contextId,
    status: { state: STATE[state], message: status, timestamp: new Date(task.updatedAt).toISOString() },
    artifacts: [...checkpointArtifacts(task), ...(state === 'completed' ? [evaluationArtifact(task)] : [])],
    history,
    metadata: taskMetadata(world, task, control),
  };
}
