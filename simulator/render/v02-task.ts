/**
 * Renders a simulated task in the 0.2.5 wire shape of the host framework's FastA2A server:
 * lowercase states, `kind` discriminators, results in history (last agent message), and
 * no artifacts at all.
 * @module
 */
import { resultText, statusText } from '../world/progress.js';
import type { SimTask } from '../world/sim-task.js';
import type { World } from '../world/world.js';
import { taskMetadata } from './control-metadata.js';

interface V02Message {
  kind: 'message';
  role: 'user' | 'agent';
  messageId: string;
  contextId: string;
  taskId: string;
  parts: { kind: 'text'; text: string }[];
}

const message = (task: SimTask, role: V02Message['role'], messageId: string, text: string): V02Message => ({
  kind: 'message',
  role,
  messageId,
  contextId: task.contextId,
  taskId: task.id,
  parts: [{ kind: 'text', text }],
});

export function renderV02Task(world: World, task: SimTask, control: boolean, historyLength?: number): Record<string, unknown> {
  const state = task.state;
  const history: V02Message[] = [
    message(task, 'user', task.userMessageId ?? `${task.id}-user`, task.instruction ?? `Run the ${task.script.name} campaign.`),
  ];
  if (state === 'input-required' || state === 'failed') history.push(message(task, 'agent', `${task.id}-status-${task.revision}`, statusText(task)));
  if (state === 'completed') history.push(message(task, 'agent', `${task.id}-result`, `${statusText(task)}\n${resultText(task)}`));
  const rendered: Record<string, unknown> = {
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: { state, timestamp: new Date(task.updatedAt).toISOString() },
    metadata: taskMetadata(world, task, control),
  };
  if (historyLength === undefined) rendered['history'] = history;
  else if (historyLength > 0) rendered['history'] = history.slice(-historyLength);
  return rendered;
}
