/** ts-proto request builders for driving the simulator with @a2a-js/sdk's own 1.0 client. */
import { randomUUID } from 'node:crypto';
import { Role, type Message, type SendMessageRequest } from '@a2a-js/sdk';

export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

/** Non-blocking, as a supervisor must send it: the remote answers with the submitted task. */
export function nonBlocking(message: Message): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true },
    metadata: undefined,
  };
}
