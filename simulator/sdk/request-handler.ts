/**
 * The SDK's DefaultRequestHandler with the two hooks the simulator needs: a GetTask first
 * advances the task's scenario one step (polling is what moves a simulated campaign), and
 * CancelTask cancels in the world (the SDK's own path would write to the store, which is a
 * read-only view here).
 * @module
 */
import type { CancelTaskRequest, GetTaskRequest, Task } from '@a2a-js/sdk';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import { CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';
import { renderProtoTask } from '../render/proto-task.js';
import { isTerminal } from '../world/scenarios.js';
import type { World } from '../world/world.js';

export class SimRequestHandler extends DefaultRequestHandler {
  private world!: World;
  private control = true;

  /** Wires the world in after construction (DefaultRequestHandler's constructor is positional). */
  attach(world: World, control: boolean): this {
    this.world = world;
    this.control = control;
    return this;
  }

  override async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    this.activate(context);
    this.world.poll(params.id);
    return super.getTask(params, context);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    this.activate(context);
    const task = this.world.get(params.id);
    if (!task) throw new TaskNotFoundError({ message: `Task not found: ${params.id}` });
    if (task.state !== 'canceled' && isTerminal(task.state)) {
      throw new TaskNotCancelableError({ message: `Task not cancelable: ${params.id} is ${task.state}` });
    }
    return renderProtoTask(this.world, this.world.cancel(params.id), this.control);
  }

  override async sendMessage(...args: Parameters<DefaultRequestHandler['sendMessage']>): ReturnType<DefaultRequestHandler['sendMessage']> {
    this.activate(args[1]);
    return super.sendMessage(...args);
  }

  /** Echo the extension in the response header when the client activated it. */
  private activate(context: ServerCallContext): void {
    if (this.control && context.requestedExtensions?.includes(CONTROL_EXTENSION_URI)) {
      context.addActivatedExtension(CONTROL_EXTENSION_URI);
    }
  }
}
