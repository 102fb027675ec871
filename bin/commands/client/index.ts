/**
 * The CLI client of a running `serve`, in the same binary: `campaigns`, `act`, `status`,
 * `events` (docs/cli.md). Each is registered alone when it is the command asked for.
 * @module
 */
export { registerAct } from './act.js';
export { registerCampaigns, registerStatus } from './campaigns.js';
export { registerEvents } from './events.js';
