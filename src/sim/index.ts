/** The device simulator (docs/simulator.md): a library for tests and benchmarks, and `vigil sim`. */
export { Simulator, type SimulatorDeps } from './simulator.js';
export type { AckRecord, CommandRecord } from './device-core.js';
export {
  resolveSimOptions,
  SIM_DEFAULTS,
  SIM_LIMITS,
  LINK_FAULTS,
  type SimOptions,
  type SimOptionsInput,
  type LinkBehaviour,
  type LinkFault,
  type SimToken,
  type SimTransport,
} from './sim-options.js';
export { SimStats, summarise, type SimSummary } from './sim-stats.js';
export { LatencyHistogram } from './latency-histogram.js';
export { deviceAccount, deviceUid, resolveSimKey } from './identity.js';
export { eventData } from './event-data.js';
export { runSimulatorCli, runSucceeded } from './sim-cli.js';
