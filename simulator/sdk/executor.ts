/**
 * The AgentExecutor behind SendMessage / message/send. It never trains anything: it records
 * the task in the world and answers at once with the submitted task, like a queueing remote
 * (and like FastA2A, which always answers `submitted`). Progress happens on polls.
 * @module
 */
import type { Message } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { isScenarioName, type ScenarioName } from '../names.js';
import { renderProtoTask } from '../render/proto-task.js';
import type { World } from '../world/world.js';

/** Text parts joined; other parts are ignored (the simulator only needs the instruction). */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** A test may pick the scenario per message with `metadata.scenario`; otherwise the default. */
function scenarioOf(message: Message, fallback: ScenarioName): ScenarioName {
  const requested: unknown = message.metadata?.['scenario'];
  return isScenarioName(requested) ? requested : fallback;
}

export class SimExecutor implements AgentExecutor {
  constructor(
    private readonly world: World,
    private readonly control: boolean,
    private readonly defaultScenario: ScenarioName,
  ) {}

  async execute(requestContext: RequestContext, eventBus: ExecutionEventBus): Promise<void> {
    const message = requestContext.userMessage;
    const task = requestContext.task
      ? this.world.answer(requestContext.taskId, messageText(message))
      : this.world.createTask({
          id: requestContext.taskId,
          contextId: requestContext.contextId,
          scenario: scenarioOf(message, this.defaultScenario),
          instruction: messageText(message),
          userMessageId: message.messageId,
        });
    eventBus.publish(AgentEvent.task(renderProtoTask(this.world, task, this.control)));
    eventBus.finished();
  }

  /** Not reached: SimRequestHandler cancels in the world directly. Kept correct anyway. */
  async cancelTask(taskId: string, eventBus: ExecutionEventBus): Promise<void> {
    const task = this.world.cancel(taskId);
    eventBus.publish(AgentEvent.task(renderProtoTask(this.world, task, this.control)));
    eventBus.finished();
  }
}
