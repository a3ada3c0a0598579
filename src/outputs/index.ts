/** Outputs: destinations fed by the durable outbox. See docs/outputs.md. */
export { buildOutput, buildOutputs, type OutputDeps, type OutputStore } from './build-outputs.js';
export { outputTimings, MLR2_TIMINGS, type OutputTimings } from './output-timings.js';
export { OutputWorkerHost, type OutputHostOptions } from './output-host.js';
export {
  OutputRunner,
  type OutputRunnerOptions,
  type DeliveryStrategy,
  type DeliveryContext,
  type Verdict,
} from './output-runner.js';
export { LinkDelivery, type LinkDeliveryOptions } from './link-delivery.js';
export { WebhookDelivery, type WebhookDeliveryOptions } from './webhook-delivery.js';
export {
  Outbox,
  type OutboxOptions,
  type OutgoingEvent,
  type OutboxJournal,
  type OutboxCursors,
  type OutboxCursorWrites,
} from './outbox.js';
export type { ByteLink, LinkFraming } from './byte-link.js';
export { TcpLink, type TcpLinkOptions } from './tcp-link.js';
export { UdpLink, type UdpLinkOptions } from './udp-link.js';
export { Mlr2Driver, type Mlr2DriverOptions } from './mlr2-driver.js';
export { Dc09Driver, type Dc09DriverOptions } from './dc09-driver.js';
export { createEventFilter, type EventFilter, type FilterSettings } from './event-filter.js';
export { createAccountResolver, oidAccount, type AccountResolver, type AccountLookups } from './account-resolver.js';
export { shapeOf, type EventShape } from './event-shape.js';
